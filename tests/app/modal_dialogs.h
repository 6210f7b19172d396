// Answers the modal dialogs an action opens (the export dialog, the replace question, the warning
// box), so a test can run a window's whole File ▸ Export flow: whenModal(answer) calls `answer`
// with the next modal widget to appear, from inside the event loop the dialog runs; `answer`
// closes it (accept, reject, a button) and may call whenModal again for the dialog after it.
#pragma once

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QMessageBox>
#include <QPushButton>
#include <QTest>
#include <QTimer>
#include <QWidget>
#include <functional>

#include "app/gui/export_dialog.h"

inline void whenModal(std::function<void(QWidget*)> answer) {
    auto* timer = new QTimer;
    auto* waited = new QElapsedTimer;
    waited->start();
    timer->setInterval(10);
    QObject::connect(timer, &QTimer::timeout, [timer, waited, answer] {
        QWidget* modal = QApplication::activeModalWidget();
        // No dialog within 10 s: give up, so a flow that opened none does not leave a timer
        // answering a later test's dialog.
        if (!modal && waited->elapsed() < 10000) return;
        timer->stop();
        timer->deleteLater();
        delete waited;
        if (modal) answer(modal);
    });
    timer->start();
}

// Closes the next modal dialog after `prepare` (may be empty) has looked at it or changed it: a
// message box by clicking its button `result` (QMessageBox::Yes, Cancel, Ok), as the static
// QMessageBox functions read the button clicked; another dialog with done(result)
// (QDialog::Accepted or Rejected).
template <typename Dialog>
void answerModal(int result, std::function<void(Dialog*)> prepare = {}) {
    whenModal([result, prepare](QWidget* modal) {
        auto* dialog = qobject_cast<Dialog*>(modal);
        if (dialog && prepare) prepare(dialog);
        if (auto* box = qobject_cast<QMessageBox*>(modal)) {
            if (QAbstractButton* button =
                    box->button(static_cast<QMessageBox::StandardButton>(result)))
                button->click();
            else
                box->reject();
        } else if (auto* other = qobject_cast<QDialog*>(modal)) {
            other->done(result);
        }
    });
}

// The shared export flow's replace question, as every window asks it: with `path` already there
// (holding "kept"), `exportAction` offers `path` in its dialog, asks "... already exists. Replace
// it?", keeps the file on Cancel and, asked again, replaces it on Yes. The caller compares the
// new contents.
inline void checkReplaceQuestion(QAction* exportAction, const QString& path) {
    QFile old(path);
    QVERIFY(old.open(QIODevice::WriteOnly));
    old.write("kept");
    old.close();
    QString offered, question;
    answerModal<ExportDialog>(QDialog::Accepted, [&](ExportDialog* d) {
        offered = d->destination();
        answerModal<QMessageBox>(QMessageBox::Cancel,
                                 [&](QMessageBox* box) { question = box->text(); });
    });
    exportAction->trigger();
    QCOMPARE(offered, path);
    QCOMPARE(question,
             QDir::toNativeSeparators(path) + QStringLiteral(" already exists. Replace it?"));
    QFile kept(path);
    QVERIFY(kept.open(QIODevice::ReadOnly));
    QCOMPARE(kept.readAll(), QByteArray("kept"));
    kept.close();
    answerModal<ExportDialog>(QDialog::Accepted,
                              [](ExportDialog*) { answerModal<QMessageBox>(QMessageBox::Yes); });
    exportAction->trigger();
}
