// ExploreParameterPanel: the module settings of explore mode. One control per setting of
// attn::ModuleConfig plus d_in and training/inference; a control the chosen module does not use
// (attn::ModuleInfo) is disabled. The engine's message about an invalid combination is shown
// under the control it names, e.g. under num_heads: "d_out = 6 is not divisible by num_heads = 4".
// multi-head-attention's switches of the chapters past the tutorial (K/V heads, mask kind and
// window, per-sentence lengths, RoPE) are built in explore_parameter_panel_chapters.cpp.
#pragma once

#include <QHash>
#include <QList>
#include <QWidget>
#include <vector>

#include "model/runner.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPalette;
class QSpinBox;

namespace views {

// "color: …" for an error message: dark red on a light palette, light red on a dark one (the
// palette has no error role).
QString errorStyleSheet(const QPalette& palette);

class ExploreParameterPanel : public QWidget {
    Q_OBJECT

public:
    explicit ExploreParameterPanel(QWidget* parent = nullptr);

    // Shows config (0 = default shown as the resolved value `resolved` when given) without
    // emitting anything.
    void setConfig(const attn::ModuleConfig& config, bool training, Eigen::Index d_in,
                   const attn::ModuleConfig* resolved = nullptr);
    // The settings as the controls show them; settings the module does not use are 0 / false.
    attn::ModuleConfig config() const;
    bool training() const;
    Eigen::Index dIn() const;

    // Empty hides the message. Otherwise it goes under the control whose setting it names first.
    void setError(const QString& message);
    QString error() const { return error_; }
    // The setting the current error is shown under ("d_out", "num_heads", ... or "" = general).
    QString errorSetting() const { return errorSetting_; }
    // A note under num_heads about a change made for the user (a head count lowered to fit a new
    // width); empty hides it.
    void setHeadsNotice(const QString& message);
    QString headsNotice() const;
    // Non-empty: the dropout controls are disabled and say why (the KV cache tab decodes at
    // inference); empty: they follow the module again.
    void setDropoutUnavailable(const QString& reason);
    QString dropoutUnavailableReason() const { return dropoutReason_; }

    QComboBox* moduleBox() const { return module_; }
    QSpinBox* dOutBox() const { return dOut_; }
    QSpinBox* headsBox() const { return heads_; }
    QSpinBox* dimKBox() const { return dimK_; }  // seed 003: width of queries and keys
    QSpinBox* dimVBox() const { return dimV_; }  // seed 003: width of values (the output)
    QSpinBox* dInBox() const { return dIn_; }
    QSpinBox* seedBox() const { return seed_; }
    QDoubleSpinBox* dropoutBox() const { return dropout_; }
    QCheckBox* trainingBox() const { return training_; }
    QCheckBox* causalBox() const { return causal_; }
    QCheckBox* biasBox() const { return bias_; }
    QCheckBox* scaleBox() const { return scale_; }
    QComboBox* maskConventionBox() const { return maskConvention_; }  // data: MaskConvention
    QComboBox* fillBox() const { return fill_; }                      // data: the fill (float)
    // GPT-2's head_mask as one switch per (remaining) head: off multiplies its weights by 0.
    QList<QCheckBox*> headSwitches() const { return headOn_; }
    // GPT-2's prune_heads, one box per head of the unpruned module: a pruned head and its
    // parameters are removed; the heads that remain are numbered 1.. again, as after pruning.
    QList<QCheckBox*> pruneSwitches() const { return pruneOn_; }

    // multi-head-attention only (attn::ModuleInfo::uses_kv_heads_masks_rope).
    enum class MaskKind { Causal, Bidirectional, Window };
    QComboBox* kvHeadsBox() const { return kvHeads_; }    // data: num_kv_heads, divisors only
    QComboBox* maskKindBox() const { return maskKind_; }  // data: MaskKind
    QSpinBox* windowBox() const { return window_; }       // enabled for MaskKind::Window only
    // One length per sentence, e.g. "6, 4": their count is the batch. Read when editing ends;
    // text that is not a list of whole numbers is explained under it and not sent.
    QLineEdit* lengthsEdit() const { return lengths_; }
    QString lengthsProblem() const;
    QCheckBox* ropeBox() const { return rope_; }
    QDoubleSpinBox* ropeBaseBox() const { return ropeBase_; }
    QSpinBox* positionOffsetBox() const { return positionOffset_; }

signals:
    // The user changed a module setting.
    void configEdited(const attn::ModuleConfig& config, bool training);
    void dInEdited(Eigen::Index d_in);

protected:
    void changeEvent(QEvent* event) override;

private:
    void addRow(QFormLayout* form, const QString& key, QWidget* field);
    void updateEnabled();
    // The chapters' switches (explore_parameter_panel_chapters.cpp).
    void createChapterWidgets();
    void connectChapterWidgets();
    void retranslateChapters();
    void updateChaptersEnabled(const attn::ModuleInfo& info);
    void showChapterDefaults(const attn::ModuleInfo& info);
    void showChapters(const attn::ModuleConfig& config, const attn::ModuleInfo& info);
    void chaptersInto(attn::ModuleConfig& c, const attn::ModuleInfo& info) const;
    void rebuildKvHeads(int numHeads, int chosen);
    void lengthsEdited();
    void followCausalSwitch();  // the mask kind shows what the causal switch says
    // The row of a chapters' setting an engine message is about; empty when none.
    static QString chapterSettingOf(const QString& message);
    // Shows the module's own causal switch, convention and fill (a newly chosen module).
    void showModuleDefaults();
    void setFill(float fill);
    void rebuildHeadSwitches(int count);
    void rebuildPruneSwitches(int count);
    void prunedChanged();
    int remainingHeads() const;
    const attn::ModuleInfo& currentModule() const;  // the module chosen in the combo box
    void emitEdited();
    void retranslate();

    QComboBox* module_ = nullptr;
    QLabel* description_ = nullptr;
    QSpinBox* dIn_ = nullptr;
    QSpinBox* dOut_ = nullptr;
    QSpinBox* heads_ = nullptr;
    QSpinBox* dimK_ = nullptr;
    QSpinBox* dimV_ = nullptr;
    QSpinBox* seed_ = nullptr;
    QDoubleSpinBox* dropout_ = nullptr;
    QCheckBox* training_ = nullptr;
    QCheckBox* causal_ = nullptr;
    QCheckBox* bias_ = nullptr;
    QCheckBox* scale_ = nullptr;
    QComboBox* maskConvention_ = nullptr;
    QComboBox* fill_ = nullptr;
    QWidget* headMask_ = nullptr;
    QList<QCheckBox*> headOn_;
    QWidget* prune_ = nullptr;
    QList<QCheckBox*> pruneOn_;
    std::vector<Eigen::Index> pruneHeads_;  // the checked boxes of pruneOn_
    QHash<QString, QLabel*> errorLabels_;   // setting -> label under its control; "" = general
    QHash<QString, QLabel*> captions_;
    QString error_;
    QString errorSetting_;
    QString dropoutReason_;
    QLabel* headsNotice_ = nullptr;
    QLabel* dropoutNote_ = nullptr;
    QComboBox* kvHeads_ = nullptr;
    QComboBox* maskKind_ = nullptr;
    QSpinBox* window_ = nullptr;
    QLineEdit* lengths_ = nullptr;
    QLabel* lengthsProblem_ = nullptr;
    std::vector<Eigen::Index> validLengths_;  // the last lengths the edit held that parsed
    QCheckBox* rope_ = nullptr;
    QDoubleSpinBox* ropeBase_ = nullptr;
    QSpinBox* positionOffset_ = nullptr;
    QWidget* maskRow_ = nullptr;
    bool updating_ = false;
};

}  // namespace views
