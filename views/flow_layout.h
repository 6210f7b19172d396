// FlowLayout: lays widgets out left to right and wraps to the next line when the width runs out
// (Qt's "Flow Layout" example), so a step's heatmaps fill a laptop screen or a projector alike
// without a fixed column count.
#pragma once

#include <QLayout>
#include <QList>
#include <QStyle>

namespace views {

class FlowLayout : public QLayout {
public:
    explicit FlowLayout(QWidget* parent = nullptr, int hSpacing = 16, int vSpacing = 16);
    ~FlowLayout() override;

    void addItem(QLayoutItem* item) override;
    int horizontalSpacing() const { return hSpacing_; }
    int verticalSpacing() const { return vSpacing_; }
    Qt::Orientations expandingDirections() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    int count() const override;
    QLayoutItem* itemAt(int index) const override;
    QSize minimumSize() const override;
    void setGeometry(const QRect& rect) override;
    QSize sizeHint() const override;
    QLayoutItem* takeAt(int index) override;

private:
    int doLayout(const QRect& rect, bool testOnly) const;

    QList<QLayoutItem*> items_;
    int hSpacing_;
    int vSpacing_;
};

}  // namespace views
