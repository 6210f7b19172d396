// Answers the modal dialogs an action opens (the export dialog, the replace question, the warning
// box), so a test can run a window's whole File ▸ Export flow: whenModal(answer) calls `answer`
// with the next modal widget to appear, from inside the event loop the dialog runs; `answer`
// closes it (accept, reject, a button) and may call whenModal again for the dialog after it.
#pragma once

#include <QApplication>
#include <QDialog>
#include <QElapsedTimer>
#include <QMessageBox>
#include <QPushButton>
#include <QTimer>
#include <QWidget>
#include <functional>

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
