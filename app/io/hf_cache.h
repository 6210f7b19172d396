// Models a user already downloaded with Hugging Face's tools, found by name as Hugging Face
// finds them: the hub cache is HF_HUB_CACHE, else $HF_HOME/hub, else
// $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub; "org/name" lives in
// models--org--name, and its snapshot is the one refs/main names, else the most recently
// modified one.
#pragma once

#include <QString>
#include <QStringList>
#include <vector>

namespace attn {

// The hub cache folder, whether or not it exists.
QString huggingFaceHubCache();

struct ModelPathResult {
    QString folder;  // set on success
    QString error;   // otherwise one line: where we looked and how to get a model
    bool ok() const { return !folder.isEmpty(); }
};

// `name` itself when it is a folder; else its snapshot in the hub cache.
ModelPathResult resolveModelPath(const QString& name);

struct CachedModel {
    QString name;    // "gpt2", "org/name"
    QString folder;  // the snapshot resolveModelPath gives
};

// Every model in the hub cache with a snapshot, sorted by name (app/io/model_store.h says which
// of them open).
std::vector<CachedModel> listCachedModels();

}  // namespace attn
