// Poppler's pdfinfo and pdftotext read the PDF figures back (tests/views/CMakeLists.txt requires
// them and passes their paths as ATTN_PDFINFO and ATTN_PDFTOTEXT).
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

#if !defined(ATTN_PDFINFO) || !defined(ATTN_PDFTOTEXT)
#error "ATTN_PDFINFO and ATTN_PDFTOTEXT must name poppler's tools (tests/views/CMakeLists.txt)"
#endif

// What `program args` prints; empty when it does not finish with status 0 within 30 s.
inline QString toolOutput(const QString& program, const QStringList& args) {
    QProcess process;
    process.start(program, args);
    if (!process.waitForFinished(30000) || process.exitStatus() != QProcess::NormalExit ||
        process.exitCode() != 0)
        return {};
    return QString::fromUtf8(process.readAllStandardOutput());
}

inline QString pdfInfo(const QString& path) {
    return toolOutput(QStringLiteral(ATTN_PDFINFO), {path});
}

// The text of the PDF, NFKC-normalised: pdftotext may name 一 by its twin glyph, the Kangxi
// radical ⼀ (U+2F00).
inline QString pdfText(const QString& path) {
    return toolOutput(QStringLiteral(ATTN_PDFTOTEXT), {path, QStringLiteral("-")})
        .normalized(QString::NormalizationForm_KC);
}
