#include "app/gui/export_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "views/colormaps.h"

namespace {

constexpr int kMaxSide = 8000;  // as attention-cli export --size

}  // namespace

ExportDialog::ExportDialog(Target target, const QString& destination, QSize fittedSize,
                           QWidget* parent)
    : QDialog(parent), target_(target), fittedSize_(fittedSize) {
    switch (target) {
        case Target::Heatmap:
            setWindowTitle(tr("Export heatmap"));
            break;
        case Target::Step:
            setWindowTitle(tr("Export all heatmaps of this step"));
            break;
        case Target::Walkthrough:
            setWindowTitle(tr("Export the whole walkthrough"));
            break;
    }
    auto* form = new QFormLayout;
    // A row whose field is a layout gets no buddy from QFormLayout, and a label without a buddy
    // shows its "&" literally: give each such label the widget its mnemonic should focus.
    const auto addRow = [this, form](const QString& text, QLayout* field, QWidget* buddy) {
        auto* label = new QLabel(text, this);
        label->setBuddy(buddy);
        form->addRow(label, field);
    };

    format_ = new QComboBox(this);
    format_->addItem(tr("PNG image"), static_cast<int>(views::FigureFormat::Png));
    format_->addItem(tr("SVG vector figure"), static_cast<int>(views::FigureFormat::Svg));
    format_->addItem(tr("PDF vector figure"), static_cast<int>(views::FigureFormat::Pdf));
    format_->addItem(tr("CSV numbers (the matrix)"), static_cast<int>(views::FigureFormat::Csv));
    form->addRow(tr("&Format:"), format_);

    fit_ = new QCheckBox(
        target == Target::Heatmap ? tr("Fit to the matrix") : tr("Fit to each matrix"), this);
    fit_->setChecked(true);
    width_ = new QSpinBox(this);
    height_ = new QSpinBox(this);
    for (QSpinBox* box : {width_, height_}) {
        box->setRange(100, kMaxSide);
        box->setSuffix(tr(" px"));
    }
    width_->setValue(fittedSize.isValid() ? fittedSize.width() : 800);
    height_->setValue(fittedSize.isValid() ? fittedSize.height() : 600);
    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(fit_);
    sizeRow->addWidget(width_);
    sizeRow->addWidget(new QLabel(QStringLiteral("×"), this));
    sizeRow->addWidget(height_);
    sizeRow->addStretch(1);
    addRow(tr("&Size:"), sizeRow, fit_);

    scale_ = new QDoubleSpinBox(this);
    scale_->setRange(1.0, views::kMaxFigureScale);
    scale_->setSingleStep(0.5);
    scale_->setDecimals(1);
    scale_->setValue(1.0);
    scale_->setPrefix(QStringLiteral("× "));
    pixels_ = new QLabel(this);
    auto* scaleRow = new QHBoxLayout;
    scaleRow->addWidget(scale_);
    scaleRow->addWidget(pixels_, 1);
    addRow(tr("S&cale:"), scaleRow, scale_);

    title_ = new QCheckBox(tr("&Title above the matrix"), this);
    title_->setChecked(true);
    values_ = new QCheckBox(tr("&Numbers in the cells"), this);
    values_->setChecked(true);
    form->addRow(QString(), title_);
    form->addRow(QString(), values_);

    colorMap_ = new QComboBox(this);
    colorMap_->addItem(tr("As on screen"), QString());
    for (const QString& name : views::colormap::names()) colorMap_->addItem(name, name);
    form->addRow(tr("Colour &map:"), colorMap_);

    background_ = new QComboBox(this);
    background_->addItem(tr("White"), false);
    background_->addItem(tr("Transparent"), true);
    form->addRow(tr("&Background:"), background_);

    destination_ = new QLineEdit(this);
    destination_->setMinimumWidth(360);
    browse_ = new QPushButton(tr("B&rowse…"), this);
    auto* destinationRow = new QHBoxLayout;
    destinationRow->addWidget(destination_, 1);
    destinationRow->addWidget(browse_);
    addRow(target == Target::Heatmap ? tr("F&ile:") : tr("F&older:"), destinationRow, destination_);

    auto* note = new QLabel(this);
    note->setWordWrap(true);
    note->setText(target == Target::Heatmap
                      ? tr("The figure is drawn as on screen: colours, labels, masked cells and "
                           "highlights.")
                      : tr("One file per heatmap, named step-NN-<matrix>, e.g. "
                           "step-11-causal-weights.png."));
    note->setForegroundRole(QPalette::PlaceholderText);

    buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons_->button(QDialogButtonBox::Ok)->setText(tr("&Export"));
    connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(note);
    layout->addWidget(buttons_);

    connect(format_, &QComboBox::currentIndexChanged, this, [this] {
        followFormat();
        updateEnabled();
    });
    for (QSpinBox* box : {width_, height_})
        connect(box, &QSpinBox::valueChanged, this, &ExportDialog::updateEnabled);
    connect(fit_, &QCheckBox::toggled, this, &ExportDialog::updateEnabled);
    connect(scale_, &QDoubleSpinBox::valueChanged, this, &ExportDialog::updateEnabled);
    connect(destination_, &QLineEdit::textChanged, this, &ExportDialog::updateEnabled);
    connect(browse_, &QPushButton::clicked, this, &ExportDialog::browse);

    setDestination(destination);
    updateEnabled();
}

views::FigureOptions ExportDialog::options() const {
    views::FigureOptions o;
    o.format = static_cast<views::FigureFormat>(format_->currentData().toInt());
    if (!fit_->isChecked()) o.size = QSize(width_->value(), height_->value());
    o.scale = o.format == views::FigureFormat::Png ? scale_->value() : 1.0;
    o.title = title_->isChecked();
    o.values = values_->isChecked();
    o.colorMap = colorMap_->currentData().toString();
    o.transparent = o.format != views::FigureFormat::Csv && background_->currentData().toBool();
    return o;
}

void ExportDialog::setOptions(const views::FigureOptions& o) {
    format_->setCurrentIndex(std::max(0, format_->findData(static_cast<int>(o.format))));
    fit_->setChecked(o.size.isEmpty());
    if (!o.size.isEmpty()) {
        width_->setValue(o.size.width());
        height_->setValue(o.size.height());
    }
    scale_->setValue(o.scale);
    title_->setChecked(o.title);
    values_->setChecked(o.values);
    colorMap_->setCurrentIndex(std::max(0, colorMap_->findData(o.colorMap)));
    background_->setCurrentIndex(o.transparent ? 1 : 0);
    followFormat();
    updateEnabled();
}

QString ExportDialog::destination() const {
    return QDir::fromNativeSeparators(destination_->text().trimmed());
}

void ExportDialog::setDestination(const QString& destination) {
    destination_->setText(QDir::toNativeSeparators(destination));
    followFormat();
}

// A single file's suffix follows the chosen format, so "Export" never writes a PNG named .svg.
void ExportDialog::followFormat() {
    if (target_ != Target::Heatmap) return;
    const QString path = destination();
    if (path.isEmpty()) return;
    const QFileInfo info(path);
    const QString suffix = views::figureSuffix(options().format);
    if (info.suffix().compare(suffix, Qt::CaseInsensitive) == 0) return;
    const QString base = views::figureFormatFromName(info.suffix())
                             ? path.left(path.size() - info.suffix().size() - 1)
                             : path;
    const QSignalBlocker block(destination_);
    destination_->setText(QDir::toNativeSeparators(base + QLatin1Char('.') + suffix));
}

void ExportDialog::browse() {
    if (target_ == Target::Heatmap) {
        const QString suffix = views::figureSuffix(options().format);
        // The dialog asks before replacing a file; ExportFlow asks once more only when needed.
        const QString path = QFileDialog::getSaveFileName(
            this, windowTitle(), destination(), tr("%1 files (*.%2)").arg(suffix.toUpper(), suffix),
            nullptr, QFileDialog::DontConfirmOverwrite);
        if (!path.isEmpty()) setDestination(path);
    } else {
        const QString dir = QFileDialog::getExistingDirectory(this, windowTitle(), destination());
        if (!dir.isEmpty()) setDestination(dir);
    }
}

void ExportDialog::updateEnabled() {
    const views::FigureOptions o = options();
    const bool picture = o.format != views::FigureFormat::Csv;
    const bool png = o.format == views::FigureFormat::Png;
    fit_->setEnabled(picture);
    width_->setEnabled(picture && !fit_->isChecked());
    height_->setEnabled(picture && !fit_->isChecked());
    scale_->setEnabled(png);
    title_->setEnabled(picture);
    values_->setEnabled(picture);
    colorMap_->setEnabled(picture);
    background_->setEnabled(picture);
    if (png && (!fit_->isChecked() || fittedSize_.isValid() || target_ == Target::Heatmap)) {
        const QSize logical =
            fit_->isChecked() ? fittedSize_ : QSize(width_->value(), height_->value());
        pixels_->setText(logical.isValid() ? tr("%1 × %2 pixels")
                                                 .arg(qRound(logical.width() * o.scale))
                                                 .arg(qRound(logical.height() * o.scale))
                                           : QString());
    } else {
        pixels_->clear();
    }
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(!destination().isEmpty());
}
