// Models found in the Hugging Face cache (app/io/hf_cache.h) as Hugging Face's own tools find
// them: which variable names the cache, how "org/name" maps to a folder, which snapshot is used,
// the message for a model that is not there, and the list the model window offers.
#include <sys/stat.h>
#include <utime.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>
#include <memory>

#include "app/io/hf_cache.h"
#include "app/io/model_store.h"

namespace {

const char* const kVariables[] = {"HF_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME", "HOME"};

bool makeFile(const QString& path, const QByteArray& bytes = {}) {
    if (!QDir().mkpath(QFileInfo(path).path())) return false;
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// A folder's modification time, `secondsAgo` before now: QDir::Time sorts snapshots by it, and
// QFile::setFileTime cannot open a folder.
bool setAge(const QString& folder, int secondsAgo) {
    const QDateTime when = QDateTime::currentDateTime().addSecs(-secondsAgo);
    utimbuf times{};
    times.actime = static_cast<time_t>(when.toSecsSinceEpoch());
    times.modtime = times.actime;
    return ::utime(QFile::encodeName(folder).constData(), &times) == 0;
}

}  // namespace

class TestHfCache : public QObject {
    Q_OBJECT

private slots:
    void init() {
        dir_ = std::make_unique<QTemporaryDir>();  // a cache of its own for every test
        QVERIFY(dir_->isValid());
        saved_.clear();
        for (const char* name : kVariables)
            saved_.append({name, qEnvironmentVariableIsSet(name), qgetenv(name)});
        // Every test starts from a cache in the temporary folder, away from the user's own.
        for (const char* name : kVariables) qunsetenv(name);
        qputenv("HF_HUB_CACHE", hub().toUtf8());
    }

    void cleanup() {
        for (const Saved& s : saved_) {
            if (s.set)
                qputenv(s.name, s.value);
            else
                qunsetenv(s.name);
        }
    }

    void cacheVariablesInHuggingFacesOrder() {
        qputenv("HF_HUB_CACHE", "/tmp/a-hub");
        qputenv("HF_HOME", "/tmp/hf-home");
        qputenv("XDG_CACHE_HOME", "/tmp/xdg");
        qputenv("HOME", "/tmp/home-of-someone");
        QCOMPARE(attn::huggingFaceHubCache(), QStringLiteral("/tmp/a-hub"));
        qputenv("HF_HUB_CACHE", "");  // set but empty counts as not set, as in huggingface_hub
        QCOMPARE(attn::huggingFaceHubCache(), QStringLiteral("/tmp/hf-home/hub"));
        qunsetenv("HF_HOME");
        QCOMPARE(attn::huggingFaceHubCache(), QStringLiteral("/tmp/xdg/huggingface/hub"));
        qunsetenv("XDG_CACHE_HOME");
        QCOMPARE(attn::huggingFaceHubCache(),
                 QStringLiteral("/tmp/home-of-someone/.cache/huggingface/hub"));
    }

    void orgSlashNameLivesInModelsDashDash() {
        const QString snapshot = hub() + "/models--openai-community--gpt2/snapshots/0123abc";
        QVERIFY(QDir().mkpath(snapshot));
        const attn::ModelPathResult r = attn::resolveModelPath("openai-community/gpt2");
        QVERIFY2(r.ok(), qPrintable(r.error));
        QCOMPARE(r.folder, snapshot);
        // A folder is taken as it is, before the cache is asked.
        const attn::ModelPathResult folder = attn::resolveModelPath(snapshot);
        QCOMPARE(folder.folder, snapshot);
    }

    // BERT's two names on the Hub: the old bare "bert-base-uncased" and the organisation's
    // "google-bert/bert-base-uncased", each in its own cache folder.
    void bertNamesResolveWithAndWithoutTheOrganisation() {
        const QString bare = hub() + "/models--bert-base-uncased/snapshots/86b5e09";
        const QString org = hub() + "/models--google-bert--bert-base-uncased/snapshots/86b5e09";
        QVERIFY(QDir().mkpath(bare));
        QVERIFY(QDir().mkpath(org));
        const attn::ModelPathResult a = attn::resolveModelPath("bert-base-uncased");
        QVERIFY2(a.ok(), qPrintable(a.error));
        QCOMPARE(a.folder, bare);
        const attn::ModelPathResult b = attn::resolveModelPath("google-bert/bert-base-uncased");
        QVERIFY2(b.ok(), qPrintable(b.error));
        QCOMPARE(b.folder, org);
    }

    void refsMainWinsOverTheNewestSnapshot() {
        const QString repo = hub() + "/models--gpt2";
        QVERIFY(QDir().mkpath(repo + "/snapshots/aaa111"));
        QVERIFY(QDir().mkpath(repo + "/snapshots/bbb222"));
        QVERIFY(setAge(repo + "/snapshots/aaa111", 3600));
        QVERIFY(setAge(repo + "/snapshots/bbb222", 60));
        QVERIFY(makeFile(repo + "/refs/main", "aaa111\n"));
        QCOMPARE(attn::resolveModelPath("gpt2").folder, repo + "/snapshots/aaa111");
        // refs/main naming a snapshot that is not there, or a path: the newest one instead.
        QVERIFY(makeFile(repo + "/refs/main", "ccc333"));
        QCOMPARE(attn::resolveModelPath("gpt2").folder, repo + "/snapshots/bbb222");
        QVERIFY(makeFile(repo + "/refs/main", "../../models--gpt2/snapshots/aaa111"));
        QCOMPARE(attn::resolveModelPath("gpt2").folder, repo + "/snapshots/bbb222");
    }

    void withoutRefsTheMostRecentlyModifiedSnapshot() {
        const QString repo = hub() + "/models--org--tiny";
        QVERIFY(QDir().mkpath(repo + "/snapshots/first"));
        QVERIFY(QDir().mkpath(repo + "/snapshots/second"));
        QVERIFY(setAge(repo + "/snapshots/first", 60));
        QVERIFY(setAge(repo + "/snapshots/second", 7200));
        QCOMPARE(attn::resolveModelPath("org/tiny").folder, repo + "/snapshots/first");
        QVERIFY(setAge(repo + "/snapshots/first", 9000));
        QCOMPARE(attn::resolveModelPath("org/tiny").folder, repo + "/snapshots/second");
    }

    void missingModelNamesTheFolderLookedIn() {
        const attn::ModelPathResult r = attn::resolveModelPath("nobody/nothing");
        QVERIFY(!r.ok());
        QVERIFY(r.folder.isEmpty());
        const QString looked = QDir::toNativeSeparators(hub() + "/models--nobody--nothing");
        QCOMPARE(r.error,
                 QStringLiteral("\"nobody/nothing\" is neither a folder nor a model in the "
                                "Hugging Face cache (looked for %1): give the folder of a "
                                "GPT-2 model, or download one first, e.g. "
                                "huggingface-cli download gpt2")
                     .arg(looked));
        // A repository folder without any snapshot is not a model either.
        QVERIFY(QDir().mkpath(hub() + "/models--half--done/blobs"));
        QVERIFY(!attn::resolveModelPath("half/done").ok());
        QVERIFY(attn::resolveModelPath("  ").error.startsWith("--model is empty"));
    }

    // Every snapshot is listed; listLocalModels (app/io/model_store.h) says which open and why
    // the others do not.
    void listSaysWhichOpenAndSkipsEmptyRepos() {
        QVERIFY(makeFile(hub() + "/models--gpt2/snapshots/s1/config.json",
                         R"({"model_type": "gpt2", "n_layer": 12})"));
        QVERIFY(makeFile(hub() + "/models--google-bert--bert-base-uncased/snapshots/s2/config.json",
                         R"({"model_type": "bert"})"));
        QVERIFY(makeFile(hub() + "/models--org--no-config/snapshots/s3/README.md", "hello"));
        QVERIFY(makeFile(hub() + "/models--org--t5/snapshots/s5/config.json",
                         R"({"model_type": "t5"})"));
        QVERIFY(QDir().mkpath(hub() + "/models--org--no-snapshot/blobs"));
        QVERIFY(QDir().mkpath(hub() + "/datasets--org--data/snapshots/s4"));
        const std::vector<attn::CachedModel> cached = attn::listCachedModels();
        QCOMPARE(cached.size(), std::size_t{4});
        QCOMPARE(cached[0].name, QStringLiteral("google-bert/bert-base-uncased"));
        QCOMPARE(cached[0].folder, hub() + "/models--google-bert--bert-base-uncased/snapshots/s2");
        QCOMPARE(cached[1].name, QStringLiteral("gpt2"));
        QCOMPARE(cached[1].folder, hub() + "/models--gpt2/snapshots/s1");
        QCOMPARE(cached[2].name, QStringLiteral("org/no-config"));
        // A snapshot without config.json (nor a .gguf file) is not a model.
        qputenv("OLLAMA_MODELS", (hub() + "/no-ollama").toUtf8());
        const std::vector<attn::LocalModel> models = attn::listLocalModels();
        QCOMPARE(models.size(), std::size_t{3});
        QCOMPARE(models[0].name, QStringLiteral("google-bert/bert-base-uncased"));
        QCOMPARE(models[0].family, QStringLiteral("bert"));
        // BertConfig's defaults make the config whole; the weights are what is missing.
        QCOMPARE(models[0].supported, false);
        QCOMPARE(models[0].reason,
                 QStringLiteral("no .safetensors weights (only safetensors are read)"));
        QCOMPARE(models[1].name, QStringLiteral("gpt2"));
        QCOMPARE(models[1].supported, false);
        QVERIFY2(models[1].reason.contains(QStringLiteral("\"n_head\"")),
                 qPrintable(models[1].reason));
        QCOMPARE(models[2].name, QStringLiteral("org/t5"));
        QCOMPARE(models[2].supported, false);
        QCOMPARE(models[2].reason,
                 QStringLiteral("config.json: line 1, column 16: \"model_type\" is the string "
                                "\"t5\"; the models that open are \"gpt2\", \"llama\" (Llama "
                                "2/3, TinyLlama, SmolLM), \"mistral\", \"qwen2\", \"qwen3\", and "
                                "the encoders \"bert\", \"distilbert\" and \"roberta\""));
        qunsetenv("OLLAMA_MODELS");
        // No hub folder at all: an empty list, not an error.
        qputenv("HF_HUB_CACHE", (hub() + "/not-there").toUtf8());
        QVERIFY(attn::listCachedModels().empty());
    }

    // A config.json that cannot be read says where: a syntax error and a wrong-typed value, each
    // with its line and column.
    void listSaysWhereAConfigIsWrong() {
        QVERIFY(makeFile(hub() + "/models--a--cut/snapshots/s1/config.json",
                         "{\n  \"model_type\": \"gpt2\",\n  \"n_layer\": 1"));
        QVERIFY(makeFile(hub() + "/models--b--typed/snapshots/s1/config.json",
                         "{\"n_layer\": 12,\n \"model_type\": [\"gpt2\"]}"));
        QVERIFY(makeFile(hub() + "/models--c--untyped/snapshots/s1/config.json", "[1, 2]"));
        qputenv("OLLAMA_MODELS", (hub() + "/no-ollama").toUtf8());
        const std::vector<attn::LocalModel> models = attn::listLocalModels();
        qunsetenv("OLLAMA_MODELS");
        QCOMPARE(models.size(), std::size_t{3});
        for (const attn::LocalModel& m : models) QCOMPARE(m.supported, false);
        QCOMPARE(models[0].reason, QStringLiteral("config.json: line 3, column 15: not valid JSON: "
                                                  "invalid termination by number; copy "
                                                  "config.json again from the model"));
        QCOMPARE(models[1].reason,
                 QStringLiteral("config.json: line 2, column 16: \"model_type\" is a list; the "
                                "models that open are "
                                "\"gpt2\", \"llama\" (Llama 2/3, TinyLlama, SmolLM), "
                                "\"mistral\", \"qwen2\", \"qwen3\", and the encoders "
                                "\"bert\", \"distilbert\" and \"roberta\""));
        QCOMPARE(models[2].reason, QStringLiteral("config.json: line 1, column 1: the file holds a "
                                                  "list; a model config is an object such as "
                                                  "{\"model_type\": \"gpt2\", ...}"));
    }

private:
    struct Saved {
        const char* name;
        bool set;
        QByteArray value;
    };
    QString hub() const { return dir_->path() + "/hub"; }
    std::unique_ptr<QTemporaryDir> dir_;
    QList<Saved> saved_;
};

QTEST_APPLESS_MAIN(TestHfCache)
#include "test_hf_cache.moc"
