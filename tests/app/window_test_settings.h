// The walkthrough window's tests keep their settings (last step, zoom, theme, export choices)
// apart from the user's: QStandardPaths' test mode, under the app's own QSettings names.
#pragma once

#include <QCoreApplication>
#include <QStandardPaths>
#include <QString>

// Call from initTestCase(); clear QSettings in init() so each test starts from the defaults.
inline void useTestSettings() {
    // Never read or write the user's real settings (~/.config).
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AttentionVisualizer"));
    QCoreApplication::setApplicationName(QStringLiteral("attention-visualizer"));
}
