#pragma once
// A worker's result handed back to the UI thread, safely even when the receiver is deleted first.

#include <QFuture>
#include <QFutureWatcher>
#include <QObject>
#include <utility>

// Calls `done(result)` in `context`'s thread once `future` has finished, unless `context` is
// gone by then. QFuture::then(context, …) in Qt 6.4 asserts, and crashes, when the context is
// deleted while the worker still runs (a window closed during a load); a QFutureWatcher child of
// the context dies with it instead, and the worker's result is simply dropped.
template <typename T, typename Done>
void whenDone(QObject* context, QFuture<T> future, Done done) {
    auto* watcher = new QFutureWatcher<T>(context);
    QObject::connect(watcher, &QFutureWatcherBase::finished, context,
                     [watcher, done = std::move(done)]() mutable {
                         watcher->deleteLater();
                         done(watcher->result());
                     });
    watcher->setFuture(std::move(future));
}
