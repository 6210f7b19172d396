#include "views/handout.h"

#include <qcustomplot.h>

#include <QAbstractTextDocumentLayout>
#include <QApplication>
#include <QBuffer>
#include <QCoreApplication>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QTextDocument>
#include <algorithm>
#include <memory>

#include "model/number_format.h"
#include "views/figure_render.h"
#include "views/heatmap_widget.h"
#include "views/matrix_panel.h"
#include "views/number_text.h"
#include "views/step_page.h"
#include "views/step_texts.h"

namespace views {

namespace {

// The context of the handout's words in the translation files.
class Handout {
    Q_DECLARE_TR_FUNCTIONS(Handout)
};

// Listed in both outputs so that Chinese tokens and texts never fall back to boxes.
const QStringList kTextFamilies{QStringLiteral("Noto Sans"), QStringLiteral("DejaVu Sans"),
                                QStringLiteral("Noto Sans CJK SC"),
                                QStringLiteral("WenQuanYi Micro Hei")};
const QStringList kCodeFamilies{QStringLiteral("DejaVu Sans Mono"),
                                QStringLiteral("Noto Sans Mono CJK SC"),
                                QStringLiteral("Noto Sans CJK SC")};

// The embeddings table of the title page lists this many tokens at most.
constexpr int kMaxTokenRows = 32;

// A4 in points, its margins, and how large a heatmap's logical pixel is printed: 0.5 pt puts two
// 6 × 6 heatmaps side by side with 7 pt cell values.
constexpr double kPageMarginPt = 50.0;
constexpr double kFooterPt = 24.0;
constexpr double kGapPt = 12.0;
constexpr double kPtPerFigurePx = 0.5;
// Device units per point: 288 dpi keeps text metrics and lines precise.
constexpr int kPdfDpi = 288;
constexpr double kUnitsPerPt = kPdfDpi / 72.0;

QString version() { return QCoreApplication::applicationVersion(); }

QString stepHeading(const attn::Step& step, const QString& title) {
    return Handout::tr("Step %1 · %2").arg(step.number).arg(title);
}

// The frame a frame step is printed at, said in words; empty for other steps.
QString frameNote(const StepPage& page) {
    const attn::Step& step = page.step();
    if (step.frame_count <= 0) return {};
    const QString chapterFrame = frameText(step, page.frame());  // masks or tiles, not tokens
    if (!chapterFrame.isEmpty())
        return Handout::tr(
                   "This step has %1 frames. The heatmaps show its last, “%2”; the app "
                   "steps through every frame.")
            .arg(step.frame_count)
            .arg(chapterFrame);
    const std::size_t f = static_cast<std::size_t>(page.frame());
    const QString token = f < step.frame_labels.size()
                              ? QString::fromStdString(step.frame_labels[f])
                              : QStringLiteral("%1").arg(page.frame() + 1);
    return Handout::tr(
               "This step decodes one token at a time. The heatmaps show its last frame, "
               "token %1 of %2 (“%3”); the app steps through every frame.")
        .arg(page.frame() + 1)
        .arg(step.frame_count)
        .arg(token);
}

// The first step's "inputs" matrix: one embedding row per token (null for other walkthroughs).
const attn::StepMatrix* inputEmbeddings(const std::vector<attn::Step>& steps) {
    if (steps.empty()) return nullptr;
    return steps.front().find("inputs");
}

QString embeddingText(const attn::Matrix& values, Eigen::Index row) {
    QStringList numbers;
    for (Eigen::Index c = 0; c < values.cols(); ++c) numbers << fixedText(values(row, c));
    return QStringLiteral("(") + numbers.join(QStringLiteral(", ")) + QStringLiteral(")");
}

// The title page's body as HTML (both outputs): sentence, tokens with embeddings, contents.
// `anchors` links the contents to the steps (HTML only).
QString titleBody(const std::vector<attn::Step>& steps, bool anchors) {
    QString html;
    const QStringList tokens = handoutTokens(steps);
    html += QStringLiteral("<p class=\"lead\">%1</p>")
                .arg(Handout::tr("The walkthrough of self-attention, step by step, on the "
                                 "sentence"));
    html += QStringLiteral("<p class=\"sentence\"><i>“%1”</i></p>")
                .arg(tokens.join(QLatin1Char(' ')).toHtmlEscaped());
    if (const attn::StepMatrix* inputs = inputEmbeddings(steps)) {
        html += QStringLiteral("<h2>%1</h2>").arg(Handout::tr("Tokens and their embeddings"));
        html += QStringLiteral(
                    "<table class=\"tokens\" cellspacing=\"0\" cellpadding=\"3\"><tr><th "
                    "align=\"left\">x<sup>(i)</sup></th><th align=\"left\">%1</th><th "
                    "align=\"left\">%2</th></tr>")
                    .arg(Handout::tr("Token"), Handout::tr("Embedding"));
        const Eigen::Index rows = inputs->values.rows();
        for (Eigen::Index r = 0; r < rows && r < kMaxTokenRows; ++r) {
            const QString token =
                r < static_cast<Eigen::Index>(inputs->row_labels.size())
                    ? QString::fromStdString(inputs->row_labels[static_cast<std::size_t>(r)])
                    : QString();
            html += QStringLiteral("<tr><td>%1</td><td>%2</td><td class=\"num\">%3</td></tr>")
                        .arg(r + 1)
                        .arg(token.toHtmlEscaped(), embeddingText(inputs->values, r));
        }
        if (rows > kMaxTokenRows) html += QStringLiteral("<tr><td>…</td><td></td><td></td></tr>");
        html += QStringLiteral("</table>");
    }
    html += QStringLiteral("<h2>%1</h2><ol class=\"contents\">").arg(Handout::tr("Contents"));
    for (const attn::Step& step : steps) {
        const QString title = stepText(step).title.toHtmlEscaped();
        html += anchors ? QStringLiteral("<li value=\"%1\"><a href=\"#step-%1\">%2</a></li>")
                              .arg(step.number)
                              .arg(title)
                        : QStringLiteral("<li value=\"%1\">%2</li>").arg(step.number).arg(title);
    }
    html += QStringLiteral("</ol>");
    html +=
        QStringLiteral("<p class=\"version\">%1</p>")
            .arg(Handout::tr("Made with Attention Visualizer %1").arg(version()).toHtmlEscaped());
    return html;
}

QString codeBlockHtml(const attn::Step& step) {
    return QStringLiteral("<h3>%1</h3><pre><code>%2</code></pre>")
        .arg(Handout::tr("The same in PyTorch"),
             QString::fromStdString(step.snippet).toHtmlEscaped());
}

bool cancelled(const HandoutProgress& progress, int done, int total, QString* reason) {
    if (!progress || progress(done, total)) return false;
    if (reason) *reason = Handout::tr("cancelled");
    return true;
}

// --- PDF ----------------------------------------------------------------------------------------

// Lays blocks of text and figures down A4 pages from top to bottom, starting a page when the
// next block does not fit in what is left of this one.
class PdfFlow {
public:
    PdfFlow(QPdfWriter& writer, QCPPainter& painter) : writer_(writer), painter_(painter) {
        const double margin = kPageMarginPt * kUnitsPerPt;
        content_ = QRectF(margin, margin, writer.width() - 2 * margin,
                          writer.height() - 2 * margin - kFooterPt * kUnitsPerPt);
        y_ = content_.top();
        baseFont_ = QApplication::font();
        baseFont_.setFamilies(kTextFamilies);
        baseFont_.setPointSizeF(10.5);
    }

    double width() const { return content_.width(); }
    double height() const { return content_.height(); }

    void newPage() {
        drawFooter();
        writer_.newPage();
        ++page_;
        y_ = content_.top();
        x_ = content_.left();
        rowHeight_ = 0;
    }
    void finish() { drawFooter(); }
    bool atTop() const { return y_ <= content_.top() && rowHeight_ == 0; }

    // A block of rich text across the whole width; pages are started as needed, a block taller
    // than a page is split between lines.
    void text(const QString& html) {
        endRow();
        QTextDocument doc;
        doc.documentLayout()->setPaintDevice(&writer_);
        doc.setDefaultFont(baseFont_);
        doc.setDefaultStyleSheet(styleSheet());
        doc.setDocumentMargin(0);
        doc.setHtml(html);
        doc.setTextWidth(content_.width());
        const double h = doc.size().height();
        if (h <= content_.bottom() - y_) {
            draw(doc, 0, h);
            y_ += h + gap();
            return;
        }
        if (!atTop()) newPage();
        if (h <= content_.height()) {
            draw(doc, 0, h);
            y_ += h + gap();
            return;
        }
        // Paginated layout moves lines that would straddle a page boundary to the next page.
        doc.setPageSize(QSizeF(content_.width(), content_.height()));
        const int pages = doc.pageCount();
        for (int p = 0; p < pages; ++p) {
            if (p > 0) newPage();
            const double top = p * content_.height();
            const double rest = std::min(content_.height(), doc.size().height() - top);
            draw(doc, top, rest);
            y_ = content_.top() + rest + gap();
        }
    }

    // A heatmap at its printed size (smaller if it would not fit a page), beside the previous one
    // when there is room, never split.
    void figure(HeatmapWidget& map) {
        const QSize size = map.preferredSize();
        if (size.isEmpty()) return;
        double w = size.width() * kPtPerFigurePx * kUnitsPerPt;
        double h = size.height() * kPtPerFigurePx * kUnitsPerPt;
        const double fit = std::min({1.0, content_.width() / w, content_.height() / h});
        w *= fit;
        h *= fit;
        if (x_ > content_.left() && x_ + w > content_.right()) endRow();
        if (y_ + h > content_.bottom() && !atTop()) newPage();
        map.renderTo(&painter_, QRectF(x_, y_, w, h), size);
        x_ += w + gap();
        rowHeight_ = std::max(rowHeight_, h);
    }

    void endRow() {
        if (rowHeight_ <= 0) return;
        y_ += rowHeight_ + gap();
        x_ = content_.left();
        rowHeight_ = 0;
    }

private:
    double gap() const { return kGapPt * kUnitsPerPt; }

    static QString styleSheet() {
        return QStringLiteral(
                   "h1 { font-size: 24pt; } h2 { font-size: 15pt; } h3 { font-size: 11.5pt; }"
                   ".lead { font-size: 12pt; color: #444444; }"
                   ".sentence { font-size: 18pt; }"
                   ".version { color: #555555; }"
                   ".note { color: #444444; }"
                   "th { border-bottom: 1px solid #999999; }"
                   "pre { font-family: %1; font-size: 9pt; }")
            .arg(QStringLiteral("'") + kCodeFamilies.join(QStringLiteral("', '")) +
                 QStringLiteral("'"));
    }

    // Lines [top, top + h) of the document's layout at the current position.
    void draw(QTextDocument& doc, double top, double h) {
        painter_.save();
        painter_.translate(content_.left(), y_ - top);
        QAbstractTextDocumentLayout::PaintContext context;
        context.clip = QRectF(0, top, content_.width(), h);
        painter_.setClipRect(context.clip);
        doc.documentLayout()->draw(&painter_, context);
        painter_.restore();
    }

    void drawFooter() {
        painter_.save();
        QFont font = baseFont_;
        font.setPointSizeF(8.5);
        painter_.setFont(font);
        painter_.setPen(QColor(0x66, 0x66, 0x66));
        const QRectF footer(content_.left(), content_.bottom() + kFooterPt * kUnitsPerPt / 2,
                            content_.width(), kFooterPt * kUnitsPerPt / 2);
        painter_.drawText(footer, Qt::AlignLeft | Qt::AlignVCenter,
                          Handout::tr("Attention Visualizer %1").arg(version()));
        painter_.drawText(footer, Qt::AlignRight | Qt::AlignVCenter,
                          QStringLiteral("%1").arg(page_));
        painter_.restore();
    }

    QPdfWriter& writer_;
    QCPPainter& painter_;
    QRectF content_;
    QFont baseFont_;
    double y_ = 0;
    double x_ = 0;
    double rowHeight_ = 0;
    int page_ = 1;
};

// --- HTML ---------------------------------------------------------------------------------------

const char* kHtmlStyle = R"(
body { font-family: "Noto Sans", "DejaVu Sans", "Noto Sans CJK SC", "Microsoft YaHei",
       "PingFang SC", sans-serif; color: #222; background: #fff; line-height: 1.5;
       max-width: 62rem; margin: 2rem auto; padding: 0 1.5rem; }
h1 { font-size: 2rem; margin: 0 0 .5rem; }
.lead { color: #444; font-size: 1.1rem; margin-bottom: 0; }
.sentence { font-size: 1.6rem; margin-top: .2rem; }
table.tokens { border-collapse: collapse; }
table.tokens th, table.tokens td { padding: .15rem 1rem .15rem 0; text-align: left; }
table.tokens th { border-bottom: 1px solid #999; }
td.num, pre, code { font-family: "DejaVu Sans Mono", "Noto Sans Mono CJK SC", monospace; }
section.step { border-top: 2px solid #ddd; margin-top: 2.5rem; padding-top: .5rem; }
.facts { font-weight: 600; }
.note { color: #444; font-style: italic; }
.figures { display: flex; flex-wrap: wrap; gap: 1.5rem; align-items: flex-start; }
figure { margin: 0; break-inside: avoid; page-break-inside: avoid; }
figure svg { display: block; max-width: 100%; height: auto; }
figcaption { font-weight: 600; margin-bottom: .2rem; }
figcaption .size { color: #666; font-weight: normal; }
pre { background: #f5f5f5; border: 1px solid #ddd; border-radius: 4px; padding: .8rem 1rem;
      overflow-x: auto; font-size: .9rem; line-height: 1.4; }
footer { margin-top: 3rem; color: #666; font-size: .9rem; }
@media print {
  body { max-width: none; margin: 0; padding: 0; font-size: 10.5pt; }
  section.step { break-before: page; page-break-before: always; border-top: none; }
  pre { white-space: pre-wrap; break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
}
)";

// QSvgGenerator's file made fit to sit inside the HTML: no XML prolog, a pixel size that CSS may
// shrink, and its ids (clip paths, gradients) prefixed so the figures of one page do not collide.
QString inlineSvg(const QByteArray& svgFile, QSize size, const QString& idPrefix) {
    QString svg = QString::fromUtf8(svgFile);
    const qsizetype start = svg.indexOf(QLatin1String("<svg"));
    if (start < 0) return {};
    svg.remove(0, start);
    const qsizetype tagEnd = svg.indexOf(QLatin1Char('>'));
    QString tag = svg.left(tagEnd);
    static const QRegularExpression width(QStringLiteral("\\swidth=\"[^\"]*\""));
    static const QRegularExpression height(QStringLiteral("\\sheight=\"[^\"]*\""));
    tag.replace(width, QStringLiteral(" width=\"%1\"").arg(size.width()));
    tag.replace(height, QStringLiteral(" height=\"%1\"").arg(size.height()));
    svg = tag + svg.mid(tagEnd);
    svg.replace(QLatin1String("id=\""), QStringLiteral("id=\"") + idPrefix);
    svg.replace(QLatin1String("url(#"), QStringLiteral("url(#") + idPrefix);
    svg.replace(QLatin1String("href=\"#"), QStringLiteral("href=\"#") + idPrefix);
    return svg.trimmed();
}

}  // namespace

QStringList handoutTokens(const std::vector<attn::Step>& steps) {
    if (const attn::StepMatrix* inputs = inputEmbeddings(steps))
        return toQStringList(inputs->row_labels);
    if (steps.empty() || steps.front().matrices.empty()) return {};
    return toQStringList(steps.front().matrices.front().row_labels);
}

QByteArray renderHandoutPdf(const std::vector<attn::Step>& steps, QString* reason,
                            const HandoutProgress& progress) {
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    {
        // The writer goes out of scope, finishing the file, before the bytes are read.
        QPdfWriter writer(&buffer);
        writer.setCreator(QStringLiteral("Attention Visualizer"));
        writer.setTitle(Handout::tr("Self-attention, step by step"));
        writer.setResolution(kPdfDpi);
        writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait,
                                         QMarginsF(0, 0, 0, 0), QPageLayout::Point));
        QCPPainter painter;
        if (!painter.begin(&writer)) {
            if (reason) *reason = Handout::tr("the PDF painter could not start");
            return {};
        }
        PdfFlow flow(writer, painter);
        flow.text(QStringLiteral("<h1>%1</h1>").arg(Handout::tr("Self-attention, step by step")) +
                  titleBody(steps, false));
        const int total = static_cast<int>(steps.size());
        for (int i = 0; i < total; ++i) {
            const attn::Step& step = steps[static_cast<std::size_t>(i)];
            StepPage page(step);
            const StepText text = stepText(step);
            flow.newPage();
            QString html = QStringLiteral("<h1>%1</h1>%2")
                               .arg(stepHeading(step, text.title).toHtmlEscaped(), text.html);
            if (!page.factsText().isEmpty())
                html += QStringLiteral("<p><b>%1</b></p>").arg(page.factsText().toHtmlEscaped());
            const QString note = frameNote(page);
            if (!note.isEmpty())
                html += QStringLiteral("<p class=\"note\"><i>%1</i></p>").arg(note.toHtmlEscaped());
            flow.text(html);
            for (const Figure& f : pageFigures(page)) {
                HeatmapWidget* map = page.heatmap(f.matrixId);
                map->setTitle(page.caption(f.matrixId));
                flow.figure(*map);
            }
            if (!step.snippet.empty()) flow.text(codeBlockHtml(step));
            if (cancelled(progress, i + 1, total, reason)) {
                painter.end();
                return {};
            }
        }
        flow.finish();
        if (!painter.end()) {
            if (reason) *reason = Handout::tr("the PDF painter could not finish");
            return {};
        }
    }
    return buffer.data();
}

QByteArray renderHandoutHtml(const std::vector<attn::Step>& steps, const QString& language,
                             QString* reason, const HandoutProgress& progress) {
    const QString title = Handout::tr("Self-attention, step by step");
    QString html;
    html +=
        QStringLiteral(
            "<!DOCTYPE html>\n<html lang=\"%1\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<meta name=\"generator\" content=\"Attention Visualizer %2\">\n"
            "<title>%3</title>\n<style>%4</style>\n</head>\n<body>\n")
            .arg(QString(language).replace(QLatin1Char('_'), QLatin1Char('-')).toHtmlEscaped(),
                 version().toHtmlEscaped(), title.toHtmlEscaped(), QString::fromUtf8(kHtmlStyle));
    html += QStringLiteral("<header>\n<h1>%1</h1>\n%2\n</header>\n")
                .arg(title.toHtmlEscaped(), titleBody(steps, true));

    FigureOptions options;
    options.format = FigureFormat::Svg;
    options.title = false;  // the caption is HTML text above the figure
    int figureNumber = 0;
    const int total = static_cast<int>(steps.size());
    for (int i = 0; i < total; ++i) {
        const attn::Step& step = steps[static_cast<std::size_t>(i)];
        StepPage page(step);
        const StepText text = stepText(step);
        html += QStringLiteral("<section class=\"step\" id=\"step-%1\">\n<h2>%2</h2>\n%3\n")
                    .arg(step.number)
                    .arg(stepHeading(step, text.title).toHtmlEscaped(), text.html);
        if (!page.factsText().isEmpty())
            html +=
                QStringLiteral("<p class=\"facts\">%1</p>\n").arg(page.factsText().toHtmlEscaped());
        const QString note = frameNote(page);
        if (!note.isEmpty())
            html += QStringLiteral("<p class=\"note\">%1</p>\n").arg(note.toHtmlEscaped());
        html += QStringLiteral("<div class=\"figures\">\n");
        for (const Figure& f : pageFigures(page)) {
            QByteArray svg;
            if (!renderFigureBytes(f, options, &svg, reason)) return {};
            const attn::Matrix shown = page.shownValues(f.matrixId);
            html += QStringLiteral(
                        "<figure>\n<figcaption>%1 <span class=\"size\">%2 × %3</span>"
                        "</figcaption>\n%4\n</figure>\n")
                        .arg(page.caption(f.matrixId).toHtmlEscaped())
                        .arg(shown.rows())
                        .arg(shown.cols())
                        .arg(inlineSvg(svg, fittedFigureSize(f, options),
                                       QStringLiteral("f%1-").arg(++figureNumber)));
        }
        html += QStringLiteral("</div>\n");
        if (!step.snippet.empty()) html += codeBlockHtml(step) + QLatin1Char('\n');
        html += QStringLiteral("</section>\n");
        if (cancelled(progress, i + 1, total, reason)) return {};
    }
    html +=
        QStringLiteral("<footer>%1</footer>\n</body>\n</html>\n")
            .arg(Handout::tr("Made with Attention Visualizer %1").arg(version()).toHtmlEscaped());
    return html.toUtf8();
}

}  // namespace views
