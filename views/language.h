// The interface language and fonts shared by the window and attention-cli's figure export, so a
// figure exported from the command line reads exactly as the window shows it. The compiled
// translations (.qm) are embedded in attn_views under :/i18n.
#pragma once

#include <QString>
#include <memory>

class QApplication;
class QTranslator;

namespace views {

// "zh_CN" for "zh", "zh-CN", "zh_CN", "zh_Hans"; "en" for "en", "en_US", "C"; empty if unknown.
QString normalizeLanguage(const QString& code);

// The installed translation of the interface. Every language gets the English plural forms ("1
// token", "2 tokens": the source texts say "%n token(s)"); install("zh_CN") adds ours on top and,
// when the system has them, Qt's own strings (dialog buttons).
class Translation {
public:
    Translation();
    ~Translation();
    Translation(const Translation&) = delete;
    Translation& operator=(const Translation&) = delete;

    // False (and nothing installed) when `language` is not "en" and its translation is missing
    // from this build.
    bool install(const QString& language);
    void remove();

private:
    std::unique_ptr<QTranslator> plurals_;  // English plural forms, under the others
    std::unique_ptr<QTranslator> ours_;
    std::unique_ptr<QTranslator> qt_;
};

// Latin faces first, then CJK ones for the Chinese interface and tokens such as "你的": without a
// CJK family in the list some platforms draw boxes.
void applyInterfaceFonts(QApplication& app);

}  // namespace views
