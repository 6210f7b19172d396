#include "views/language.h"

#include <QApplication>
#include <QFont>
#include <QLibraryInfo>
#include <QTranslator>

namespace views {

QString normalizeLanguage(const QString& code) {
    const QString c = code.trimmed().toLower().replace(QLatin1Char('-'), QLatin1Char('_'));
    if (c == QLatin1String("zh") || c.startsWith(QLatin1String("zh_")))
        return QStringLiteral("zh_CN");
    if (c == QLatin1String("en") || c.startsWith(QLatin1String("en_")) || c == QLatin1String("c"))
        return QStringLiteral("en");
    return {};
}

Translation::Translation() = default;

Translation::~Translation() { remove(); }

bool Translation::install(const QString& language) {
    remove();
    // Installed first, so a message the language's own file lacks still gets an English plural.
    auto plurals = std::make_unique<QTranslator>();
    if (plurals->load(QStringLiteral(":/i18n/attention_visualizer_en.qm"))) {
        QCoreApplication::installTranslator(plurals.get());
        plurals_ = std::move(plurals);
    }
    if (language == QLatin1String("en")) return true;
    auto ours = std::make_unique<QTranslator>();
    if (!ours->load(QStringLiteral(":/i18n/attention_visualizer_%1.qm").arg(language))) {
        remove();
        return false;
    }
    QCoreApplication::installTranslator(ours.get());
    ours_ = std::move(ours);
    auto qt = std::make_unique<QTranslator>();
    if (qt->load(QStringLiteral("qtbase_%1").arg(language),
                 QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        QCoreApplication::installTranslator(qt.get());
        qt_ = std::move(qt);
    }
    return true;
}

void Translation::remove() {
    if (plurals_) QCoreApplication::removeTranslator(plurals_.get());
    if (ours_) QCoreApplication::removeTranslator(ours_.get());
    if (qt_) QCoreApplication::removeTranslator(qt_.get());
    plurals_.reset();
    ours_.reset();
    qt_.reset();
}

void applyInterfaceFonts(QApplication& app) {
    QFont font = QApplication::font();
    font.setFamilies({QStringLiteral("Noto Sans"), QStringLiteral("DejaVu Sans"),
                      QStringLiteral("Noto Sans CJK SC"), QStringLiteral("WenQuanYi Micro Hei"),
                      QStringLiteral("Microsoft YaHei"), QStringLiteral("PingFang SC")});
    if (font.pointSizeF() < 10.0) font.setPointSizeF(10.0);
    app.setFont(font);
}

}  // namespace views
