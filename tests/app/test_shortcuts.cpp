// Every key of a window does one thing: an ambiguous shortcut (two actions on Ctrl+E) makes Qt
// do nothing at all, which a teacher discovers in front of the class. Lists every QAction and
// QShortcut key of the walkthrough, explore and model windows and fails on a duplicate.
#include <QAction>
#include <QDialog>
#include <QHash>
#include <QKeySequence>
#include <QShortcut>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTest>

#include "app/gui/explore_window.h"
#include "app/gui/main_window.h"
#include "app/gui/model_window.h"

namespace {

// "Ctrl+E: Export heatmap…, Explore" for every key bound more than once; empty when all are unique.
QString duplicateKeys(const QWidget& window) {
    QHash<QString, QStringList> owners;
    for (const QAction* a : window.findChildren<QAction*>())
        for (const QKeySequence& key : a->shortcuts())
            if (!key.isEmpty())
                owners[key.toString(QKeySequence::PortableText)] << a->text().remove('&');
    for (const QShortcut* s : window.findChildren<QShortcut*>())
        for (const QKeySequence& key : s->keys())
            if (!key.isEmpty())
                owners[key.toString(QKeySequence::PortableText)] << QStringLiteral("QShortcut");
    QStringList duplicates;
    for (auto it = owners.cbegin(); it != owners.cend(); ++it)
        if (it.value().size() > 1)
            duplicates << it.key() + QStringLiteral(": ") + it.value().join(QStringLiteral(", "));
    return duplicates.join(QStringLiteral("; "));
}

int keyCount(const QWidget& window) {
    int count = 0;
    for (const QAction* a : window.findChildren<QAction*>()) count += int(a->shortcuts().size());
    return count;
}

}  // namespace

class TestShortcuts : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void walkthroughKeysAreUnique() {
        MainWindow w;
        QVERIFY(keyCount(w) >= 10);  // the menus are built: the list below is not empty
        const QString duplicates = duplicateKeys(w);
        QVERIFY2(duplicates.isEmpty(), qPrintable(duplicates));
        // The keys the README documents.
        QHash<QString, QString> byKey;
        for (const QAction* a : w.findChildren<QAction*>())
            for (const QKeySequence& key : a->shortcuts())
                byKey[key.toString(QKeySequence::PortableText)] = a->text().remove('&');
        QCOMPARE(byKey.value(QStringLiteral("Ctrl+E")), QStringLiteral("Explore"));
        QCOMPARE(byKey.value(QStringLiteral("Ctrl+Alt+E")), QStringLiteral("Export heatmap…"));
        QCOMPARE(byKey.value(QStringLiteral("F11")).isEmpty(), false);
    }

    // Help > Keyboard shortcuts (F1) lists every key of the window, from its actions and its
    // navigation and presentation keys: a new action appears there without editing the list.
    void helpListsEveryKey() {
        MainWindow w;
        const QList<std::pair<QString, QString>> rows = w.keyboardShortcuts();
        QStringList keys;
        for (const auto& [k, description] : rows) {
            QVERIFY2(!description.isEmpty(), qPrintable(k));
            keys << k.split(QStringLiteral(" / "));
        }
        int actions = 0;
        for (const QAction* a : w.findChildren<QAction*>())
            for (const QKeySequence& key : a->shortcuts()) {
                const QString name = key.toString(QKeySequence::NativeText);
                QVERIFY2(keys.contains(name), qPrintable(name + QStringLiteral(" missing")));
                ++actions;
            }
        QVERIFY(actions >= 10);
        // The clicker's keys and the keys of presenting.
        for (const QString& key :
             {QStringLiteral("→"), QStringLiteral("←"), QStringLiteral("↓"),
              QKeySequence(Qt::Key_PageDown).toString(QKeySequence::NativeText),
              QKeySequence(Qt::Key_PageUp).toString(QKeySequence::NativeText),
              QKeySequence(Qt::Key_Space).toString(QKeySequence::NativeText),
              QKeySequence(Qt::Key_Escape).toString(QKeySequence::NativeText),
              QKeySequence(Qt::Key_Home).toString(QKeySequence::NativeText)})
            QVERIFY2(keys.contains(key), qPrintable(key + QStringLiteral(" missing")));
        QVERIFY(rows.size() >= actions);

        // F1 opens it, also while presenting (menu bar hidden): a table of exactly these rows.
        QAction* help = nullptr;
        for (QAction* a : w.actions())
            if (a->shortcuts().contains(QKeySequence(Qt::Key_F1))) help = a;
        QVERIFY(help);
        help->trigger();
        auto* dialog = w.findChild<QDialog*>();
        QVERIFY(dialog && dialog->isVisible());
        auto* table = dialog->findChild<QTableWidget*>();
        QVERIFY(table);
        QCOMPARE(table->rowCount(), rows.size());
        QCOMPARE(table->item(0, 0)->text(), rows.constFirst().first);
        QCOMPARE(table->item(0, 1)->text(), rows.constFirst().second);
        dialog->close();
    }

    void exploreKeysAreUnique() {
        ExploreWindow w;
        QVERIFY(keyCount(w) >= 5);
        const QString duplicates = duplicateKeys(w);
        QVERIFY2(duplicates.isEmpty(), qPrintable(duplicates));
    }

    void modelKeysAreUnique() {
        ModelWindow w;
        QVERIFY(keyCount(w) >= 7);
        const QString duplicates = duplicateKeys(w);
        QVERIFY2(duplicates.isEmpty(), qPrintable(duplicates));
        // Every action with a key is one the window lists (and so keeps while a menu is closed).
        for (const QAction* a : w.findChildren<QAction*>())
            if (!a->shortcuts().isEmpty())
                QVERIFY2(w.windowActions().contains(const_cast<QAction*>(a)),
                         qPrintable(a->text()));
    }
};

QTEST_MAIN(TestShortcuts)
#include "test_shortcuts.moc"
