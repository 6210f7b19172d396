// Helpers of the run_module tests (test_runner.cpp, test_runner_switches.cpp): a config for one
// module kind, the engine's error message for a run, a weight by its state_dict name.
#pragma once

#include <QMetaType>
#include <QString>
#include <string>

#include "model/examples.h"
#include "model/runner.h"

Q_DECLARE_METATYPE(attn::ModuleConfig)
Q_DECLARE_METATYPE(attn::ModuleKind)

namespace runtest {

using attn::ModuleKind;

inline attn::ModuleConfig configFor(ModuleKind module) {
    attn::ModuleConfig c;
    c.module = module;
    return c;
}

// The module's own config with `change` applied, for _data() rows of configs.
template <typename Change>
attn::ModuleConfig with(ModuleKind module, Change change) {
    attn::ModuleConfig c = configFor(module);
    change(c);
    return c;
}

// The AttentionError message of the run; "<no error>" when it runs.
inline QString errorOf(const attn::ModuleConfig& config, const attn::Sequence& inputs,
                       const attn::Sequence* source = nullptr) {
    try {
        attn::run_module(config, inputs, source);
    } catch (const attn::AttentionError& e) {
        return QString::fromStdString(e.what());
    }
    return QStringLiteral("<no error>");
}

inline const attn::NamedMatrix* findWeight(const attn::RunResult& r, const std::string& name) {
    for (const attn::NamedMatrix& w : r.weights) {
        if (w.name == name) {
            return &w;
        }
    }
    return nullptr;
}

// The row name of a kind in _data() tables: its name from the table.
inline const char* rowName(ModuleKind module) { return attn::module_name(module).data(); }

}  // namespace runtest
