// The example file reader's checks shared by its two parts: example_file.cpp reads the file
// (tokens, embeddings, weights, source) and example_config.cpp its "config" object. Internal to
// attn_io; every failure throws JsonError with the value's line and column (json_locator.h).
#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <optional>

#include "app/io/json_locator.h"
#include "model/runner.h"

namespace attn::example_read {

// A JSON number that fits a float; `what` names it: "embeddings row 2, value 3".
float number(const JsonText& text, const QJsonValue& v, const JsonPath& at, const QString& what);

// Refuses a key of `object` (at `at`) that is not in `known`; `what` names the object
// ("\"config\"").
void checkKeys(const JsonText& text, const QJsonObject& object, const JsonPath& at,
               const QStringList& known, const QString& what);

// The "config" object at `at`; its "training" goes to *training (unset when absent).
attn::ModuleConfig parseConfig(const JsonText& text, const QJsonValue& value, const JsonPath& at,
                               std::optional<bool>* training);

}  // namespace attn::example_read
