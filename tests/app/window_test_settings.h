// The walkthrough window's tests keep their settings (last step, zoom, theme, export choices)
// apart from the user's, QStandardPaths' test mode, and apart from each other's: ctest runs the
// suites in parallel, and one suite clearing the settings must not reset another's mid-test.
#pragma once

#include <QCoreApplication>
#include <QStandardPaths>
#include <QString>

// Call from initTestCase(); clear QSettings in init() so each test starts from the defaults.
inline void useTestSettings(const char* suite) {
    // Never read or write the user's real settings (~/.config).
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("AttentionVisualizer"));
    QCoreApplication::setApplicationName(QStringLiteral("attention-visualizer-test-") +
                                         QLatin1String(suite));
}
