// ExportDialog: File ▸ Export's options: what to write (one heatmap, all heatmaps of
// the step, the whole walkthrough), the format, size, scale, title, cell values, colour map,
// background, and the file or folder. It only collects the choices; ExportFlow (every window's
// export) has the figures drawn through views/figure_render.h and saves them through
// app/io/file_batch.h, as attention-cli export does.
#pragma once

#include <QDialog>
#include <QSize>
#include <QString>

#include "views/figure_render.h"

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

class ExportDialog : public QDialog {
    Q_OBJECT

public:
    enum class Target { Heatmap, Step, Walkthrough };

    // destination: a file path for Target::Heatmap (its suffix follows the format), a folder
    // otherwise. fittedSize: the heatmap's own size, shown when "fit" is on.
    ExportDialog(Target target, const QString& destination, QSize fittedSize,
                 QWidget* parent = nullptr);

    Target target() const { return target_; }
    // The choices; overwrite is always false (ExportFlow asks before replacing files).
    views::FigureOptions options() const;
    void setOptions(const views::FigureOptions& options);
    QString destination() const;
    void setDestination(const QString& destination);

    // For tests.
    QComboBox* formatBox() const { return format_; }
    QCheckBox* fitBox() const { return fit_; }
    QSpinBox* widthBox() const { return width_; }
    QSpinBox* heightBox() const { return height_; }
    QDoubleSpinBox* scaleBox() const { return scale_; }
    QCheckBox* titleBox() const { return title_; }
    QCheckBox* valuesBox() const { return values_; }
    QComboBox* colorMapBox() const { return colorMap_; }
    QComboBox* backgroundBox() const { return background_; }
    QLineEdit* destinationEdit() const { return destination_; }

private:
    void browse();
    void updateEnabled();
    void followFormat();

    Target target_;
    QSize fittedSize_;
    QComboBox* format_ = nullptr;
    QCheckBox* fit_ = nullptr;
    QSpinBox* width_ = nullptr;
    QSpinBox* height_ = nullptr;
    QDoubleSpinBox* scale_ = nullptr;
    QLabel* pixels_ = nullptr;
    QCheckBox* title_ = nullptr;
    QCheckBox* values_ = nullptr;
    QComboBox* colorMap_ = nullptr;
    QComboBox* background_ = nullptr;
    QLineEdit* destination_ = nullptr;
    QPushButton* browse_ = nullptr;
    QDialogButtonBox* buttons_ = nullptr;
};
