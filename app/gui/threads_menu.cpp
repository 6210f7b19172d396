#include "app/gui/threads_menu.h"

#include <QActionGroup>
#include <QMenu>
#include <QSettings>

#include "model/matmul.h"

namespace {

const QString kThreadsKey = QStringLiteral("engine/threads");

int savedThreads() { return QSettings().value(kThreadsKey, 0).toInt(); }

// 0 (or anything out of range) is every core.
void applyThreads(int threads) {
    const int cores = attn::available_cores();
    attn::set_engine_threads(threads >= 1 && threads <= cores ? threads : cores);
}

}  // namespace

ThreadsMenu::ThreadsMenu(QMenu* parent, QObject* owner) : QObject(owner) {
    menu_ = parent->addMenu(QString());
    group_ = new QActionGroup(this);
    allCores_ = menu_->addAction(QString());
    allCores_->setCheckable(true);
    group_->addAction(allCores_);
    connect(allCores_, &QAction::triggered, this, [this] { choose(0); });
    menu_->addSeparator();
    for (const int n : offeredCounts(attn::available_cores())) {
        QAction* a = menu_->addAction(QString::number(n));
        a->setCheckable(true);
        group_->addAction(a);
        connect(a, &QAction::triggered, this, [this, n] { choose(n); });
        counts_.emplace_back(n, a);
    }
    // Another window may have changed it: show the current choice whenever the menu opens.
    connect(menu_, &QMenu::aboutToShow, this, &ThreadsMenu::checkCurrent);
    checkCurrent();
    retranslate();
}

void ThreadsMenu::retranslate() {
    menu_->setTitle(tr("&Threads"));
    allCores_->setText(tr("Every core (%1)").arg(attn::available_cores()));
}

void ThreadsMenu::applySaved() { applyThreads(savedThreads()); }

std::vector<int> ThreadsMenu::offeredCounts(int cores) {
    std::vector<int> counts;
    if (cores <= 8) {
        for (int n = 1; n <= cores; ++n) counts.push_back(n);
        return counts;
    }
    for (int n = 1; n < cores; n *= 2) counts.push_back(n);
    counts.push_back(cores);
    return counts;
}

void ThreadsMenu::choose(int threads) {
    QSettings().setValue(kThreadsKey, threads);
    applyThreads(threads);
    checkCurrent();
}

void ThreadsMenu::checkCurrent() {
    const int saved = savedThreads();
    bool found = false;
    for (const auto& [n, action] : counts_) {
        const bool on = saved == n;
        action->setChecked(on);
        found = found || on;
    }
    allCores_->setChecked(!found);
}
