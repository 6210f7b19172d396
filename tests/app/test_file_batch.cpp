// Saving files the user asked for (app/io/file_batch.h), without any figure: one file refused
// when it exists, is a folder or has no folder; a batch refused before anything is written when a
// file exists or the folder cannot be made; and a batch that fails part-way (a file that cannot
// be made, a folder in a file's place, a write that hits a file size limit as a full disk would)
// removes the files it created and leaves the rest as they were.
#include <signal.h>
#include <sys/resource.h>

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include "app/io/file_batch.h"
#include "tests/test_files.h"

namespace {

// While it lives, files of this process may not grow past `bytes`: writes beyond fail with EFBIG
// ("File too large"), part-way through a file as on a full disk.
class FileSizeLimit {
public:
    explicit FileSizeLimit(rlim_t bytes) {
        ::getrlimit(RLIMIT_FSIZE, &saved_);
        // Without the signal's default action (terminate) the write returns EFBIG.
        previous_ = ::signal(SIGXFSZ, SIG_IGN);
        const rlimit limit{bytes, saved_.rlim_max};
        ok_ = ::setrlimit(RLIMIT_FSIZE, &limit) == 0;
    }
    ~FileSizeLimit() {
        ::setrlimit(RLIMIT_FSIZE, &saved_);
        ::signal(SIGXFSZ, previous_);
    }
    FileSizeLimit(const FileSizeLimit&) = delete;
    FileSizeLimit& operator=(const FileSizeLimit&) = delete;
    bool ok() const { return ok_; }

private:
    rlimit saved_{};
    void (*previous_)(int) = SIG_DFL;
    bool ok_ = false;
};

// File i holds "file i" followed by `sizes[i]` dots; `made` records the files asked for.
attn::FileBytes dots(const QList<int>& sizes, QList<qsizetype>* made) {
    return [sizes, made](qsizetype i, QByteArray& bytes, QString&) {
        made->append(i);
        bytes = "file " + QByteArray::number(i) + QByteArray(sizes.at(i), '.');
        return true;
    };
}

}  // namespace

class TestFileBatch : public QObject {
    Q_OBJECT

private slots:
    void oneFile();
    void oneFileRefused_data();
    void oneFileRefused();
    void batchWritesInOrder();
    void batchMakesItsFolder();
    void existingFileRefusesTheBatch();
    void unwritableFolder_data();
    void unwritableFolder();
    void failurePartWayRemovesWhatWasCreated_data();
    void failurePartWayRemovesWhatWasCreated();
};

void TestFileBatch::oneFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("figure.csv");
    QString error;
    QVERIFY2(attn::saveFile(path, "CSV", "a,b\r\n", false, &error), qPrintable(error));
    QCOMPARE(readFile(path), QByteArray("a,b\r\n"));
    QVERIFY2(attn::saveFile(path, "CSV", "c\r\n", true, &error), qPrintable(error));
    QCOMPARE(readFile(path), QByteArray("c\r\n"));
    QCOMPARE(folderEntries(dir.path()), QStringList{"figure.csv"});  // no temporary file left
}

void TestFileBatch::oneFileRefused_data() {
    QTest::addColumn<QString>("where");
    QTest::addColumn<bool>("overwrite");
    QTest::addColumn<QString>("message");
    QTest::newRow("existing file") << "existing" << false << "already exists and was left as it is";
    QTest::newRow("a folder") << "folder" << true << "is a folder: give a file name";
    QTest::newRow("missing folder") << "missing" << false << "the folder";
    QTest::newRow("the folder is a file") << "under-file" << true << "does not exist";
}

void TestFileBatch::oneFileRefused() {
    QFETCH(QString, where);
    QFETCH(bool, overwrite);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString path = dir.filePath("figure.png");
    if (where == "existing") QVERIFY(writeFile(path, "keep me"));
    if (where == "folder") QVERIFY(QDir(dir.path()).mkdir("figure.png"));
    if (where == "missing") path = dir.filePath("no-such-folder/figure.png");
    if (where == "under-file") {
        QVERIFY(writeFile(dir.filePath("plain-file"), "not a folder"));
        path = dir.filePath("plain-file/figure.png");
    }
    const QStringList before = folderEntries(dir.path());
    QString error;
    QVERIFY(!attn::saveFile(path, "PNG", "\x89PNG new", overwrite, &error));
    QVERIFY2(error.contains(QDir::toNativeSeparators(path)), qPrintable(error));
    QVERIFY2(error.contains(message), qPrintable(error));
    QCOMPARE(folderEntries(dir.path()), before);
    if (where == "existing") QCOMPARE(readFile(path), QByteArray("keep me"));
}

void TestFileBatch::batchWritesInOrder() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QList<qsizetype> made;
    QStringList written;
    QString error;
    QVERIFY2(attn::saveFileBatch(dir.path(), {"b.csv", "a.csv", "c.csv"}, "CSV", false,
                                 dots({1, 2, 3}, &made), &written, &error),
             qPrintable(error));
    QCOMPARE(made, (QList<qsizetype>{0, 1, 2}));
    QCOMPARE(written,
             (QStringList{dir.filePath("b.csv"), dir.filePath("a.csv"), dir.filePath("c.csv")}));
    QCOMPARE(readFile(dir.filePath("a.csv")), QByteArray("file 1.."));
    QCOMPARE(folderEntries(dir.path()), (QStringList{"a.csv", "b.csv", "c.csv"}));
}

void TestFileBatch::batchMakesItsFolder() {
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString dir = root.filePath("figures/step-11");
    QList<qsizetype> made;
    QStringList written;
    QString error;
    QVERIFY2(
        attn::saveFileBatch(dir, {"one.png"}, "PNG", false, dots({4}, &made), &written, &error),
        qPrintable(error));
    QCOMPARE(written, QStringList{QDir(dir).filePath("one.png")});
    QCOMPARE(readFile(written.first()), QByteArray("file 0...."));
}

void TestFileBatch::existingFileRefusesTheBatch() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(writeFile(dir.filePath("b.png"), "keep me"));
    const QStringList names{"a.png", "b.png", "c.png"};
    QCOMPARE(attn::existingFiles(dir.path(), names), QStringList{dir.filePath("b.png")});
    QList<qsizetype> made;
    QStringList written{"stale"};
    QString error;
    QVERIFY(!attn::saveFileBatch(dir.path(), names, "PNG", false, dots({1, 1, 1}, &made), &written,
                                 &error));
    QVERIFY2(error.contains(QDir::toNativeSeparators(dir.filePath("b.png")) +
                            " already exists (1 of the 3 files): nothing was written"),
             qPrintable(error));
    QVERIFY(made.isEmpty());  // refused before any file was made
    QVERIFY(written.isEmpty());
    QCOMPARE(folderEntries(dir.path()), QStringList{"b.png"});
    QCOMPARE(readFile(dir.filePath("b.png")), QByteArray("keep me"));

    // Allowed to replace it: all three are written.
    QVERIFY2(attn::saveFileBatch(dir.path(), names, "PNG", true, dots({1, 1, 1}, &made), &written,
                                 &error),
             qPrintable(error));
    QCOMPARE(written.size(), 3);
    QCOMPARE(readFile(dir.filePath("b.png")), QByteArray("file 1."));
}

void TestFileBatch::unwritableFolder_data() {
    QTest::addColumn<QString>("where");
    QTest::addColumn<QString>("message");
    // Both fail for root too (unlike a read-only folder, which root can write).
    QTest::newRow("the folder is a file") << "file"
                                          << "is a file, not a folder";
    QTest::newRow("the folder's parent is a file") << "under-file"
                                                   << "Could not create the folder";
}

void TestFileBatch::unwritableFolder() {
    QFETCH(QString, where);
    QFETCH(QString, message);
    QTemporaryDir root;
    QVERIFY(root.isValid());
    const QString file = root.filePath("plain-file");
    QVERIFY(writeFile(file, "not a folder"));
    const QString dir = where == "file" ? file : file + "/figures";
    QList<qsizetype> made;
    QStringList written{"stale"};
    QString error;
    QVERIFY(!attn::saveFileBatch(dir, {"a.svg", "b.svg"}, "SVG", true, dots({1, 1}, &made),
                                 &written, &error));
    QVERIFY2(error.contains(message), qPrintable(error));
    QVERIFY2(error.contains(QDir::toNativeSeparators(dir)), qPrintable(error));
    QVERIFY(made.isEmpty());
    QVERIFY(written.isEmpty());
    QCOMPARE(folderEntries(root.path()), QStringList{"plain-file"});
    QCOMPARE(readFile(file), QByteArray("not a folder"));
}

void TestFileBatch::failurePartWayRemovesWhatWasCreated_data() {
    QTest::addColumn<QString>("failure");
    QTest::addColumn<QStringList>("message");  // parts of the error
    QTest::newRow("the third file cannot be made")
        << "producer" << QStringList{"There is no matrix “c”.", "removed again"};
    QTest::newRow("a folder where the third file goes")
        << "folder" << QStringList{"c.png is a folder", "removed again"};
    QTest::newRow("the third write hits a file size limit")
        << "size limit"
        << QStringList{"Could not save PNG to", "c.png", "File too large", "removed again"};
    QTest::newRow("the first file cannot be made")
        << "first" << QStringList{"There is no matrix “a”."};
}

// Files a, b (which existed before and is replaced) and c, d; one of them fails. The files the
// batch created go again; b, which it did not create, stays.
void TestFileBatch::failurePartWayRemovesWhatWasCreated() {
    QFETCH(QString, failure);
    QFETCH(QStringList, message);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(writeFile(dir.filePath("b.png"), "old b"));
    if (failure == "folder") QVERIFY(QDir(dir.path()).mkdir("c.png"));
    const QStringList names{"a.png", "b.png", "c.png", "d.png"};
    const QStringList before = folderEntries(dir.path());
    const qsizetype failing = failure == "first" ? 0 : 2;
    QList<qsizetype> made;
    const attn::FileBytes produce = [&](qsizetype i, QByteArray& bytes, QString& error) {
        made.append(i);
        if ((failure == "producer" || failure == "first") && i == failing) {
            error = QStringLiteral("There is no matrix “%1”.").arg(names.at(i).left(1));
            return false;
        }
        // Under the size limit only the third file is too large; larger than the file's write
        // buffer (16 kB), so the write itself fails, as when a disk fills up mid-file.
        bytes = QByteArray(i == 2 ? 65536 : 16, 'x');
        return true;
    };
    QStringList written{"stale"};
    QString error;
    bool ok = true;
    if (failure == "size limit") {
        const FileSizeLimit limit(4096);
        QVERIFY(limit.ok());
        ok = attn::saveFileBatch(dir.path(), names, "PNG", true, produce, &written, &error);
    } else {
        ok = attn::saveFileBatch(dir.path(), names, "PNG", true, produce, &written, &error);
    }
    QVERIFY(!ok);
    for (const QString& part : message) QVERIFY2(error.contains(part), qPrintable(error));
    QVERIFY(written.isEmpty());
    QCOMPARE(made.last(), failing);  // nothing after the failure was made
    QCOMPARE(folderEntries(dir.path()), before);
    if (failure != "first") QCOMPARE(readFile(dir.filePath("b.png")), QByteArray(16, 'x'));
}

QTEST_APPLESS_MAIN(TestFileBatch)
#include "test_file_batch.moc"
