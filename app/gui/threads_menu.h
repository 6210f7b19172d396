// The Threads menu: how many cores the engine computes a model with. Every core by default (a
// person is waiting); fewer leaves cores to other programs, e.g. while presenting from a laptop.
// The choice is kept in QSettings ("engine/threads", 0 = every core) and applied at start-up.
#pragma once

#include <QObject>
#include <vector>

class QAction;
class QActionGroup;
class QMenu;

class ThreadsMenu : public QObject {
    Q_OBJECT
public:
    // Adds the submenu to `parent`.
    ThreadsMenu(QMenu* parent, QObject* owner);
    void retranslate();

    // The saved choice (0 = every core) applied to the engine; called once at start-up.
    static void applySaved();
    // The counts the menu offers on a machine with `cores` cores: 1 … cores, or powers of two
    // and the whole count when there are more than eight.
    static std::vector<int> offeredCounts(int cores);

private:
    void choose(int threads);  // 0 = every core
    void checkCurrent();

    QMenu* menu_ = nullptr;
    QActionGroup* group_ = nullptr;
    QAction* allCores_ = nullptr;
    std::vector<std::pair<int, QAction*>> counts_;
};
