<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>ExploreSession</name>
    <message>
        <source>not enough memory for this run: use fewer tokens or heads</source>
        <translation>内存不足，无法完成此次运行：请减少词元或头的数量</translation>
    </message>
    <message>
        <source>Rename token %1</source>
        <translation>重命名词元 %1</translation>
    </message>
    <message>
        <source>Edit embedding (%1, %2)</source>
        <translation>编辑嵌入 (%1, %2)</translation>
    </message>
    <message>
        <source>new</source>
        <translation>新</translation>
    </message>
    <message>
        <source>Add token</source>
        <translation>添加词元</translation>
    </message>
    <message>
        <source>Remove token %1</source>
        <translation>删除词元 %1</translation>
    </message>
    <message>
        <source>Move token %1 to %2</source>
        <translation>将词元 %1 移到 %2</translation>
    </message>
    <message>
        <source>Random embeddings (seed %1)</source>
        <translation>随机嵌入（seed %1）</translation>
    </message>
    <message>
        <source>the pasted matrix has %1 rows; explore mode takes at most %2 tokens</source>
        <translation>粘贴的矩阵有 %1 行；探索模式最多接受 %2 个词元</translation>
    </message>
    <message>
        <source>Paste %1 × %2 matrix</source>
        <translation>粘贴 %1 × %2 矩阵</translation>
    </message>
    <message>
        <source>Set d_in = %1</source>
        <translation>设置 d_in = %1</translation>
    </message>
    <message>
        <source>Change settings</source>
        <translation>更改设置</translation>
    </message>
    <message>
        <source>Edit %1 (%2, %3)</source>
        <translation>编辑 %1 (%2, %3)</translation>
    </message>
    <message>
        <source>Reset weights to the seed&apos;s</source>
        <translation>将权重重置为 seed 生成的值</translation>
    </message>
    <message>
        <source>%1 — num_heads set to %2, which divides the new width.</source>
        <translation>%1 —— num_heads 已设为 %2，它能整除新的宽度。</translation>
    </message>
</context>
<context>
    <name>ExploreWindow</name>
    <message>
        <source>Not computed: %1 — the views show the last valid result.</source>
        <translation>未计算：%1 — 视图显示的是上一次有效的结果。</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Insert a token after the current one</source>
        <translation>在当前词元之后插入一个词元</translation>
    </message>
    <message>
        <source>Drag a row number to move its token</source>
        <translation>拖动行号即可移动该词元</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Up</source>
        <translation>上移</translation>
    </message>
    <message>
        <source>Down</source>
        <translation>下移</translation>
    </message>
    <message>
        <source>Random fill, seed</source>
        <translation>随机填充，seed</translation>
    </message>
    <message>
        <source>Embeddings = torch.rand(T, d_in) after torch.manual_seed(seed)</source>
        <translation>嵌入 = torch.manual_seed(seed) 之后的 torch.rand(T, d_in)</translation>
    </message>
    <message>
        <source>Paste matrix</source>
        <translation>粘贴矩阵</translation>
    </message>
    <message>
        <source>Replace the embeddings by a matrix copied from a spreadsheet or a printed tensor</source>
        <translation>用从电子表格或打印出的张量中复制的矩阵替换嵌入</translation>
    </message>
    <message>
        <source>Reset to the tutorial example</source>
        <translation>重置为教程示例</translation>
    </message>
    <message>
        <source>tutorial example</source>
        <translation>教程示例</translation>
    </message>
    <message>
        <source>Explore attention — %1</source>
        <translation>探索注意力 — %1</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>词元数</translation>
    </message>
    <message>
        <source>Source (cross-attention)</source>
        <translation>源序列（交叉注意力）</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>头数</translation>
    </message>
    <message>
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <source>Lines</source>
        <translation>连线</translation>
    </message>
    <message>
        <source>Weight split</source>
        <translation>权重切分</translation>
    </message>
    <message>
        <source>Cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>head </source>
        <translation>头 </translation>
    </message>
    <message>
        <source>context_vecs (the module&apos;s output)</source>
        <translation>context_vecs（模块的输出）</translation>
    </message>
    <message>
        <source>tokens</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>output features</source>
        <translation>输出特征</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open example…</source>
        <translation>打开示例文件(&amp;O)…</translation>
    </message>
    <message>
        <source>Open &amp;recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>保存(&amp;S)</translation>
    </message>
    <message>
        <source>Save &amp;as…</source>
        <translation>另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Close explore mode</source>
        <translation>关闭探索模式(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>Cannot paste: %1</source>
        <translation>无法粘贴：%1</translation>
    </message>
    <message>
        <source>the clipboard is empty</source>
        <translation>剪贴板为空</translation>
    </message>
    <message>
        <source>%1 was not opened: %2</source>
        <translation>未打开 %1：%2</translation>
    </message>
    <message>
        <source>Open example</source>
        <translation>打开示例文件</translation>
    </message>
    <message>
        <source>Attention examples (*.json);;All files (*)</source>
        <translation>注意力示例文件 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Save example</source>
        <translation>保存示例文件</translation>
    </message>
    <message>
        <source>Attention examples (*.json)</source>
        <translation>注意力示例文件 (*.json)</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>The cache is shown for a MultiHeadAttention with d_out = d_in = %1 and %2 heads drawn from seed %3 (the KV cache belongs to decoder modules).</source>
        <translation>此处显示的缓存属于一个 MultiHeadAttention，其 d_out = d_in = %1，有 %2 个头，由 seed %3 生成（KV 缓存属于解码器模块）。</translation>
    </message>
    <message>
        <source>GPT-2 fuses query, key and value into one c_attn (Conv1D, x · W): its first d_model columns are W_query, shown transposed.</source>
        <translation>GPT-2 将查询、键和值融合到一个 c_attn 中（Conv1D，x · W）：其前 d_model 列就是 W_query，此处以转置形式显示。</translation>
    </message>
    <message>
        <source>MultiHeadAttentionWrapper keeps one W_query per head (heads.h.W_query): nothing is split; the heads&apos; outputs are concatenated and there is no out_proj.</source>
        <translation>MultiHeadAttentionWrapper 为每个头保留一个 W_query（heads.h.W_query）：没有任何切分；各个头的输出被拼接起来，并且没有 out_proj。</translation>
    </message>
    <message>
        <source>%1 has a single head: there is nothing to split. Choose multi-head-attention to see the split.</source>
        <translation>%1 只有一个头：没有什么可切分的。请选择 multi-head-attention 来查看权重切分。</translation>
    </message>
    <message>
        <source>Choose the module cross-attention: the tokens ask the queries, the source sequence (its own tab on the left) gives keys and values, e.g. a sentence and its translation.</source>
        <translation>请选择模块 cross-attention：词元提出查询，源序列（左侧有它自己的选项卡）提供键和值，例如一个句子及其译文。</translation>
    </message>
    <message>
        <source>attn_weights, head %1</source>
        <translation>attn_weights，头 %1</translation>
    </message>
    <message>
        <source>target (queries)</source>
        <translation>目标（查询）</translation>
    </message>
    <message>
        <source>source (keys)</source>
        <translation>源（键）</translation>
    </message>
    <message>
        <source>%1 — showing the tutorial&apos;s example instead.</source>
        <translation>%1 — 改为显示教程的示例。</translation>
    </message>
    <message numerus="yes">
        <source>Computing %n token(s) in the background…</source>
        <translation>
            <numerusform>正在后台计算 %n 个词元…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> Only the first %n token(s) are stepped through.</source>
        <translation>
            <numerusform>只逐步演示前 %n 个词元。</numerusform>
        </translation>
    </message>
    <message>
        <source>Dropout is off in the KV cache: a cache is used when generating text, at inference, where nn.Dropout does nothing. The other tabs use p = %1.</source>
        <translation>KV 缓存中不使用 dropout：缓存用于生成文本，即推理阶段，此时 nn.Dropout 不起作用。其他标签页使用 p = %1。</translation>
    </message>
    <message>
        <source>Queries from %1, keys and values from %2: the weight matrix is %3 × %4, not square, and there is no causal mask. Edit both sequences on the left.</source>
        <translation>查询来自%1，键和值来自%2：权重矩阵是 %3 × %4，不是方阵，也没有因果掩码。可在左侧编辑两个序列。</translation>
    </message>
    <message numerus="yes">
        <source>%n target token(s)</source>
        <translation>
            <numerusform>%n 个目标词元</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n source token(s)</source>
        <translation>
            <numerusform>%n 个源词元</numerusform>
        </translation>
    </message>
    <message>
        <source>Tiles</source>
        <translation>分块</translation>
    </message>
    <message>
        <source>The cache decodes the tokens one at a time from position 0: the sliding window, the sentence lengths and the position offset of the other tabs are not applied here.</source>
        <translation>缓存从位置 0 开始逐个解码词元：其他标签页中的滑动窗口、句子长度和位置偏移在这里不适用。</translation>
    </message>
    <message>
        <source>sentence %1 (length %2)</source>
        <translation>句子 %1（长度 %2）</translation>
    </message>
    <message>
        <source>sentence %1</source>
        <translation>句子 %1</translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation>导出(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Head figure…</source>
        <translation>头的图形(&amp;H)…</translation>
    </message>
    <message>
        <source>&amp;All heads as one figure…</source>
        <translation>所有头合成一张图形(&amp;A)…</translation>
    </message>
    <message>
        <source>Nothing to export: the current settings are not computed (%1).</source>
        <translation>没有可导出的内容：当前设置未能计算（%1）。</translation>
    </message>
    <message>
        <source>Nothing to export: the module has not computed attention weights yet.</source>
        <translation>没有可导出的内容：模块尚未计算出注意力权重。</translation>
    </message>
    <message>
        <source>Nothing to export: %1</source>
        <translation>没有可导出的内容：%1</translation>
    </message>
</context>
<context>
    <name>ExportActions</name>
    <message>
        <source>&amp;Export</source>
        <translation>导出(&amp;E)</translation>
    </message>
    <message>
        <source>Export &amp;heatmap…</source>
        <translation>导出热力图(&amp;H)…</translation>
    </message>
    <message>
        <source>Export all heatmaps of this &amp;step…</source>
        <translation>导出此步骤的所有热力图(&amp;S)…</translation>
    </message>
    <message>
        <source>Export the &amp;whole walkthrough…</source>
        <translation>导出整个演练过程(&amp;W)…</translation>
    </message>
    <message>
        <source>&amp;Copy figure</source>
        <translation>复制图形(&amp;C)</translation>
    </message>
    <message>
        <source>Export matrix as &amp;CSV…</source>
        <translation>将矩阵导出为 CSV(&amp;C)…</translation>
    </message>
    <message>
        <source>There is no heatmap to export on this page.</source>
        <translation>此页面上没有可导出的热力图。</translation>
    </message>
    <message>
        <source>There is no step to export.</source>
        <translation>没有可导出的步骤。</translation>
    </message>
    <message>
        <source>Copied the figure “%1” to the clipboard</source>
        <translation>已将图形“%1”复制到剪贴板</translation>
    </message>
    <message>
        <source>%1 already exists. Replace it?</source>
        <translation>%1 已存在。要替换它吗？</translation>
    </message>
    <message>
        <source>%1 of the files already exist, for example %2. Replace them?</source>
        <translation>已有 %1 个文件存在，例如 %2。要替换它们吗？</translation>
    </message>
    <message>
        <source>Replace existing files?</source>
        <translation>替换已有文件？</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>Export matrix as CSV</source>
        <translation>将矩阵导出为 CSV</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <source>Figures saved: %1, in %2</source>
        <translation>图形已保存：%1，位于 %2</translation>
    </message>
    <message>
        <source>Export &amp;handout…</source>
        <translation>导出讲义(&amp;H)…</translation>
    </message>
    <message>
        <source>%1 is neither a PDF nor an HTML file: give a name ending in .pdf or .html.</source>
        <translation>%1 既不是 PDF 文件也不是 HTML 文件：请使用以 .pdf 或 .html 结尾的文件名。</translation>
    </message>
    <message>
        <source>Could not draw the handout %1: %2</source>
        <translation>无法绘制讲义 %1：%2</translation>
    </message>
    <message>
        <source>PDF handout (*.pdf)</source>
        <translation>PDF 讲义 (*.pdf)</translation>
    </message>
    <message>
        <source>HTML handout (*.html *.htm)</source>
        <translation>HTML 讲义 (*.html *.htm)</translation>
    </message>
    <message>
        <source>Export handout</source>
        <translation>导出讲义</translation>
    </message>
    <message>
        <source>Drawing the handout…</source>
        <translation>正在绘制讲义…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Saved the handout %1</source>
        <translation>讲义已保存：%1</translation>
    </message>
</context>
<context>
    <name>ExportDialog</name>
    <message>
        <source>Export heatmap</source>
        <translation>导出热力图</translation>
    </message>
    <message>
        <source>Export all heatmaps of this step</source>
        <translation>导出此步骤的所有热力图</translation>
    </message>
    <message>
        <source>Export the whole walkthrough</source>
        <translation>导出整个演练过程</translation>
    </message>
    <message>
        <source>PNG image</source>
        <translation>PNG 图像</translation>
    </message>
    <message>
        <source>SVG vector figure</source>
        <translation>SVG 矢量图</translation>
    </message>
    <message>
        <source>PDF vector figure</source>
        <translation>PDF 矢量图</translation>
    </message>
    <message>
        <source>CSV numbers (the matrix)</source>
        <translation>CSV 数值（矩阵）</translation>
    </message>
    <message>
        <source>&amp;Format:</source>
        <translation>格式(&amp;F)：</translation>
    </message>
    <message>
        <source>Fit to the matrix</source>
        <translation>适应矩阵大小</translation>
    </message>
    <message>
        <source>Fit to each matrix</source>
        <translation>适应每个矩阵的大小</translation>
    </message>
    <message>
        <source> px</source>
        <translation> px</translation>
    </message>
    <message>
        <source>&amp;Size:</source>
        <translation>尺寸(&amp;S)：</translation>
    </message>
    <message>
        <source>S&amp;cale:</source>
        <translation>缩放(&amp;C)：</translation>
    </message>
    <message>
        <source>&amp;Title above the matrix</source>
        <translation>在矩阵上方显示标题(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Numbers in the cells</source>
        <translation>在单元格中显示数值(&amp;N)</translation>
    </message>
    <message>
        <source>As on screen</source>
        <translation>与屏幕显示一致</translation>
    </message>
    <message>
        <source>Colour &amp;map:</source>
        <translation>颜色映射(&amp;M)：</translation>
    </message>
    <message>
        <source>White</source>
        <translation>白色</translation>
    </message>
    <message>
        <source>Transparent</source>
        <translation>透明</translation>
    </message>
    <message>
        <source>&amp;Background:</source>
        <translation>背景(&amp;B)：</translation>
    </message>
    <message>
        <source>B&amp;rowse…</source>
        <translation>浏览(&amp;R)…</translation>
    </message>
    <message>
        <source>F&amp;ile:</source>
        <translation>文件(&amp;I)：</translation>
    </message>
    <message>
        <source>F&amp;older:</source>
        <translation>文件夹(&amp;O)：</translation>
    </message>
    <message>
        <source>The figure is drawn as on screen: colours, labels, masked cells and highlights.</source>
        <translation>图形按屏幕上的样子绘制：颜色、标签、被掩码的单元格和高亮。</translation>
    </message>
    <message>
        <source>One file per heatmap, named step-NN-&lt;matrix&gt;, e.g. step-11-causal-weights.png.</source>
        <translation>每个热力图一个文件，命名为 step-NN-&lt;matrix&gt;，例如 step-11-causal-weights.png。</translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation>导出(&amp;E)</translation>
    </message>
    <message>
        <source>%1 files (*.%2)</source>
        <translation>%1 文件 (*.%2)</translation>
    </message>
    <message>
        <source>%1 × %2 pixels</source>
        <translation>%1 × %2 像素</translation>
    </message>
</context>
<context>
    <name>FigureExport</name>
    <message>
        <source>Could not save %1 to %2: %3</source>
        <translation>无法将 %1 保存到 %2：%3</translation>
    </message>
    <message>
        <source>There is no matrix “%1” on this page.</source>
        <translation>此页面上没有矩阵“%1”。</translation>
    </message>
    <message>
        <source>%1 already exists and was left as it is: choose another name or folder, or allow replacing existing files.</source>
        <translation>%1 已存在，保持原样未动：请选择其他名称或文件夹，或允许替换已有文件。</translation>
    </message>
    <message>
        <source>%1 is a folder: give a file name.</source>
        <translation>%1 是一个文件夹：请给出文件名。</translation>
    </message>
    <message>
        <source>Could not save to %1: the folder %2 does not exist.</source>
        <translation>无法保存到 %1：文件夹 %2 不存在。</translation>
    </message>
    <message>
        <source>%1 is a file, not a folder: choose a folder for the figures.</source>
        <translation>%1 是一个文件，而不是文件夹：请为图形选择一个文件夹。</translation>
    </message>
    <message>
        <source>Could not create the folder %1: check that its parent exists and is writable, or choose another folder.</source>
        <translation>无法创建文件夹 %1：请检查其上级文件夹是否存在且可写，或选择其他文件夹。</translation>
    </message>
    <message>
        <source>%1 already exists (%2 of the %3 files): nothing was written. Choose another folder, or allow replacing existing files.</source>
        <translation>%1 已存在（%3 个文件中的第 %2 个）：未写入任何内容。请选择其他文件夹，或允许替换已有文件。</translation>
    </message>
    <message>
        <source>The figures written before it were removed again.</source>
        <translation>在它之前写入的图形已被再次删除。</translation>
    </message>
    <message>
        <source>There are no figures to put side by side.</source>
        <translation>没有可以并排放置的图形。</translation>
    </message>
</context>
<context>
    <name>FigurePaint</name>
    <message>
        <source>the figure has no size</source>
        <translation>图形没有尺寸</translation>
    </message>
    <message>
        <source>the PNG painter could not start</source>
        <translation>PNG 绘制器无法启动</translation>
    </message>
    <message>
        <source>the SVG painter could not start</source>
        <translation>SVG 绘制器无法启动</translation>
    </message>
    <message>
        <source>the PDF painter could not start</source>
        <translation>PDF 绘制器无法启动</translation>
    </message>
    <message>
        <source>CSV is a table, not a drawing</source>
        <translation>CSV 是表格，不是图形</translation>
    </message>
</context>
<context>
    <name>GuiOptions</name>
    <message>
        <source>Learn how transformer attention works, step by step, on the tutorial&apos;s six-token example.</source>
        <translation>以教程中的六词元示例，一步一步学习 Transformer 注意力机制的工作原理。</translation>
    </message>
    <message>
        <source>Language: en or zh_CN (default: the system&apos;s).</source>
        <translation>语言：en 或 zh_CN（默认跟随系统）。</translation>
    </message>
    <message>
        <source>Walk through the tokens of a JSON example &lt;FILE&gt;.</source>
        <translation>使用 JSON 示例文件 &lt;FILE&gt; 中的词元进行讲解。</translation>
    </message>
    <message>
        <source>unexpected argument &apos;%1&apos;: the options are listed by --help</source>
        <translation>无法识别的参数 &apos;%1&apos;：可用选项见 --help</translation>
    </message>
    <message>
        <source>--lang &apos;%1&apos; is not available: choose en or zh_CN</source>
        <translation>--lang &apos;%1&apos; 不可用：请选择 en 或 zh_CN</translation>
    </message>
    <message>
        <source>Start in presentation mode: full screen, large text and heatmaps, no step list (F11 or Escape leaves it).</source>
        <translation>以演示模式启动：全屏、大号文字和热力图、不显示步骤列表（按 F11 或 Escape 退出）。</translation>
    </message>
    <message>
        <source>Open on step &lt;N&gt;, 1 the first.</source>
        <translation>打开时显示第 &lt;N&gt; 步，1 为第一步。</translation>
    </message>
    <message>
        <source>Open the model window on an attention dump (.npy or .safetensors with its tokens JSON beside it).</source>
        <translation>用注意力转储（.npy 或 .safetensors，旁边附带其词元 JSON）打开模型窗口。</translation>
    </message>
    <message>
        <source>With --model: the text to run the model on.</source>
        <translation>与 --model 一起使用：模型要处理的文本。</translation>
    </message>
    <message>
        <source>--step &apos;%1&apos; is not a step number: give a whole number, 1 for the first step</source>
        <translation>--step &apos;%1&apos; 不是步骤编号：请给出一个整数，1 表示第一步</translation>
    </message>
    <message>
        <source>--model and --dump both open the model window: give one of them</source>
        <translation>--model 和 --dump 都会打开模型窗口：请只给出其中一个</translation>
    </message>
    <message>
        <source>--text needs --model DIR|NAME</source>
        <translation>--text 需要 --model DIR|NAME</translation>
    </message>
    <message>
        <source>Open the model window on a model: a Hugging Face folder, a .gguf file, ollama:NAME[:TAG], or a name found in the Hugging Face cache (e.g. gpt2).</source>
        <translation>用一个模型打开模型窗口：Hugging Face 文件夹、.gguf 文件、ollama:NAME[:TAG]，或 Hugging Face 缓存中的模型名称（例如 gpt2）。</translation>
    </message>
    <message>
        <source>Open the Train window: train a small transformer and watch its heads learn (an induction head forms in two layers).</source>
        <translation>打开训练窗口：训练一个小型 Transformer，观察它的注意力头如何学习（两层模型会形成归纳头）。</translation>
    </message>
    <message>
        <source>With --model on an encoder (BERT, RoBERTa): the second sentence of a pair (Sentence B).</source>
        <translation>与 --model 一起用于编码器（BERT、RoBERTa）：句对中的第二个句子（句子 B）。</translation>
    </message>
    <message>
        <source>--pair needs --model DIR|NAME</source>
        <translation>--pair 需要 --model DIR|NAME</translation>
    </message>
</context>
<context>
    <name>Handout</name>
    <message>
        <source>Step %1 · %2</source>
        <translation>第 %1 步 · %2</translation>
    </message>
    <message>
        <source>This step decodes one token at a time. The heatmaps show its last frame, token %1 of %2 (“%3”); the app steps through every frame.</source>
        <translation>这一步每次解码一个词元。热力图显示的是最后一帧，即第 %1 个词元（共 %2 个，“%3”）；在应用中可以逐帧查看。</translation>
    </message>
    <message>
        <source>The walkthrough of self-attention, step by step, on the sentence</source>
        <translation>逐步讲解自注意力，所用的句子是</translation>
    </message>
    <message>
        <source>Tokens and their embeddings</source>
        <translation>词元及其嵌入向量</translation>
    </message>
    <message>
        <source>Token</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>Embedding</source>
        <translation>嵌入向量</translation>
    </message>
    <message>
        <source>Contents</source>
        <translation>目录</translation>
    </message>
    <message>
        <source>Made with Attention Visualizer %1</source>
        <translation>由 Attention Visualizer %1 生成</translation>
    </message>
    <message>
        <source>The same in PyTorch</source>
        <translation>对应的 PyTorch 代码</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>Attention Visualizer %1</source>
        <translation>Attention Visualizer %1</translation>
    </message>
    <message>
        <source>Self-attention, step by step</source>
        <translation>自注意力，一步一步来</translation>
    </message>
    <message>
        <source>the PDF painter could not start</source>
        <translation>PDF 绘制器无法启动</translation>
    </message>
    <message>
        <source>the PDF painter could not finish</source>
        <translation>PDF 绘制器无法完成</translation>
    </message>
    <message>
        <source>This step has %1 frames. The heatmaps show its last, “%2”; the app steps through every frame.</source>
        <translation>这一步有 %1 帧。热力图显示的是最后一帧“%2”；在应用中可以逐帧查看。</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>The Chinese translation is missing from this build.</source>
        <translation>此版本缺少中文翻译。</translation>
    </message>
    <message>
        <source>About Attention Visualizer</source>
        <translation>关于 Attention Visualizer</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Attention Visualizer %1&lt;/h3&gt;&lt;p&gt;Learn how transformer attention works, step by step: every matrix of the tutorial “Your journey starts with one step”, computed live.&lt;/p&gt;&lt;p&gt;Keys: ←/→ or PageUp/PageDown for the previous and next step, Home/End for the first and last. Point at a cell to see how it is computed.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Attention Visualizer %1&lt;/h3&gt;&lt;p&gt;一步一步学习 Transformer 注意力机制：教程“Your journey starts with one step”中的每个矩阵都是实时计算的。&lt;/p&gt;&lt;p&gt;按键：←/→ 或 PageUp/PageDown 切换上一步和下一步，Home/End 跳到第一步和最后一步。把鼠标指向单元格即可查看它的计算过程。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Step %1 of %2</source>
        <translation>第 %1 步，共 %2 步</translation>
    </message>
    <message>
        <source>%1. %2</source>
        <translation>%1. %2</translation>
    </message>
    <message>
        <source>Attention Visualizer</source>
        <translation>注意力可视化 Attention Visualizer</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Show &amp;numbers as tables</source>
        <translation>以表格显示数值(&amp;N)</translation>
    </message>
    <message>
        <source>Zoom &amp;in</source>
        <translation>放大(&amp;I)</translation>
    </message>
    <message>
        <source>Zoom &amp;out</source>
        <translation>缩小(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Actual size</source>
        <translation>实际大小(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About Attention Visualizer</source>
        <translation>关于 Attention Visualizer(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Steps</source>
        <translation>步骤(&amp;S)</translation>
    </message>
    <message>
        <source>◀ &amp;Previous</source>
        <translation>◀ 上一步(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Next ▶</source>
        <translation>下一步(&amp;N) ▶</translation>
    </message>
    <message>
        <source>Previous step (← or PageUp)</source>
        <translation>上一步（← 或 PageUp）</translation>
    </message>
    <message>
        <source>Next step (→ or PageDown)</source>
        <translation>下一步（→ 或 PageDown）</translation>
    </message>
    <message>
        <source>&amp;Explore</source>
        <translation>探索(&amp;E)</translation>
    </message>
    <message>
        <source>Next token of a step with frames, else the next step</source>
        <translation>分帧步骤的下一个词元，否则下一步</translation>
    </message>
    <message>
        <source>Previous token of a step with frames, else the previous step</source>
        <translation>分帧步骤的上一个词元，否则上一步</translation>
    </message>
    <message>
        <source>First step</source>
        <translation>第一步</translation>
    </message>
    <message>
        <source>Last step</source>
        <translation>最后一步</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts…</source>
        <translation>键盘快捷键(&amp;K)…</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <source>What they do</source>
        <translation>作用</translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation>模型(&amp;M)</translation>
    </message>
    <message>
        <source>Open &amp;model…</source>
        <translation>打开模型(&amp;M)…</translation>
    </message>
    <message>
        <source>&amp;Train</source>
        <translation>训练(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Train a model…</source>
        <translation>训练模型(&amp;T)…</translation>
    </message>
</context>
<context>
    <name>ModelSession</name>
    <message>
        <source>%1 · %2 layers × %3 heads · %4 × %5 · %6</source>
        <translation>%1 · %2 层 × %3 个头 · %4 × %5 · %6</translation>
    </message>
    <message>
        <source>The text gives no tokens.</source>
        <translation>该文本没有产生任何词元。</translation>
    </message>
    <message numerus="yes">
        <source>The text is %n tokens but the model reads at most n_positions = %1: shorten it.</source>
        <translation>
            <numerusform>文本有 %n 个词元，但模型最多读取 n_positions = %1 个：请缩短文本。</numerusform>
        </translation>
    </message>
    <message>
        <source>The model reads at most n_positions = %1 tokens: nothing more can be generated.</source>
        <translation>模型最多读取 n_positions = %1 个词元：无法再生成更多内容。</translation>
    </message>
    <message>
        <source>%1 · %2 · %3 layers × %4 heads · n_embd %5 · %6</source>
        <translation>%1 · %2 · %3 层 × %4 个头 · n_embd %5 · %6</translation>
    </message>
    <message>
        <source>%1 · %2 · %3 layers × %4 query heads sharing %5 K/V heads (%6 each) · n_embd %7 · %8</source>
        <translation>%1 · %2 · %3 层 × %4 个查询头，共享 %5 个 K/V 头（每个 %6 个）· n_embd %7 · %8</translation>
    </message>
    <message>
        <source>An encoder does not generate: every token already sees the whole text.</source>
        <translation>编码器不生成文本：每个词元已经看到了整段文本。</translation>
    </message>
    <message>
        <source>Type a Sentence B: the two sentences then run as one padded batch.</source>
        <translation>输入句子 B：两个句子随后会作为一个填充后的批次一起运行。</translation>
    </message>
    <message>
        <source>This tokenizer has no padding token, so there is no padded batch.</source>
        <translation>这个分词器没有填充词元，因此无法组成填充批次。</translation>
    </message>
</context>
<context>
    <name>ModelWindow</name>
    <message>
        <source>%1 bytes</source>
        <translation>%1 字节</translation>
    </message>
    <message>
        <source>%1 KiB</source>
        <translation>%1 KiB</translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation>%1 MiB</translation>
    </message>
    <message>
        <source>Loading cancelled.</source>
        <translation>已取消加载。</translation>
    </message>
    <message>
        <source>Opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message>
        <source>Attention Visualizer — a real model</source>
        <translation>Attention Visualizer — 真实模型</translation>
    </message>
    <message>
        <source>Open model folder…</source>
        <translation>打开模型文件夹…</translation>
    </message>
    <message>
        <source>Open attention dump…</source>
        <translation>打开注意力转储…</translation>
    </message>
    <message>
        <source>Recent:</source>
        <translation>最近打开：</translation>
    </message>
    <message>
        <source>Loading the model… the window stays usable; Cancel stops it.</source>
        <translation>正在加载模型…窗口仍可使用；点击“取消”可停止。</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>&amp;Text:</source>
        <translation>文本(&amp;T)：</translation>
    </message>
    <message>
        <source>Type a text: the model runs on it as you type</source>
        <translation>输入文本：模型会随输入实时运行</translation>
    </message>
    <message>
        <source>Every layer (rows) × head (columns): click a head to see it large</source>
        <translation>每一层（行）× 每个头（列）：点击一个头可放大查看</translation>
    </message>
    <message>
        <source>Colours:</source>
        <translation>颜色：</translation>
    </message>
    <message>
        <source>each row its own range</source>
        <translation>每行各自的范围</translation>
    </message>
    <message>
        <source>each head its own range</source>
        <translation>每个头各自的范围</translation>
    </message>
    <message>
        <source>one range, 0 to 1</source>
        <translation>统一范围，0 到 1</translation>
    </message>
    <message>
        <source>Head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>Lines</source>
        <translation>连线</translation>
    </message>
    <message>
        <source>Next token</source>
        <translation>下一个词元</translation>
    </message>
    <message>
        <source>Generate next token</source>
        <translation>生成下一个词元</translation>
    </message>
    <message numerus="yes">
        <source>Generate %n tokens</source>
        <translation>
            <numerusform>生成 %n 个词元</numerusform>
        </translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Back to the text</source>
        <translation>返回原始文本</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open model folder…</source>
        <translation>打开模型文件夹(&amp;O)…</translation>
    </message>
    <message>
        <source>Open attention &amp;dump…</source>
        <translation>打开注意力转储(&amp;D)…</translation>
    </message>
    <message>
        <source>&amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation>导出(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Head figure…</source>
        <translation>头的图形(&amp;H)…</translation>
    </message>
    <message>
        <source>All heads of the &amp;layer as one figure…</source>
        <translation>该层所有头合成一张图形(&amp;L)…</translation>
    </message>
    <message>
        <source>&amp;Next-token chart…</source>
        <translation>下一个词元图表(&amp;N)…</translation>
    </message>
    <message>
        <source>&amp;Close</source>
        <translation>关闭(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Generate</source>
        <translation>生成(&amp;G)</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>停止(&amp;S)</translation>
    </message>
    <message>
        <source>(no models found)</source>
        <translation>（未找到模型）</translation>
    </message>
    <message numerus="yes">
        <source>%n tokens</source>
        <translation>
            <numerusform>%n 个词元</numerusform>
        </translation>
    </message>
    <message>
        <source>An attention dump holds only the weights: the hover shows each weight, not its q·k arithmetic.</source>
        <translation>注意力转储只包含权重：悬停时显示每个权重，而不是它的 q·k 计算过程。</translation>
    </message>
    <message>
        <source>Generate: each new token is one new attention row per head, read against the kv_cache of the tokens before it.</source>
        <translation>生成：每个新词元在每个头中新增一行注意力，对照它之前各词元的 kv_cache 计算。</translation>
    </message>
    <message numerus="yes">
        <source>%n generated, </source>
        <translation>
            <numerusform>已生成 %n 个， </numerusform>
        </translation>
    </message>
    <message>
        <source> · cached rows vs one full pass: max |difference| %1</source>
        <translation> · 缓存计算的行与一次完整计算相比：最大 |差值| %1</translation>
    </message>
    <message>
        <source>Open an attention dump</source>
        <translation>打开注意力转储</translation>
    </message>
    <message>
        <source>Attention dumps (*.npy *.safetensors)</source>
        <translation>注意力转储 (*.npy *.safetensors)</translation>
    </message>
    <message>
        <source>Nothing to export: open a model and type a text first.</source>
        <translation>没有可导出的内容：请先打开模型并输入文本。</translation>
    </message>
    <message>
        <source>Nothing to export: the next-token chart is empty.</source>
        <translation>没有可导出的内容：下一个词元图表为空。</translation>
    </message>
    <message>
        <source>An attention dump: its tokens and weights are the file&apos;s</source>
        <translation>注意力转储：词元和权重都来自文件</translation>
    </message>
    <message>
        <source>&lt;h2&gt;No model open&lt;/h2&gt;&lt;p&gt;Open a model to see what its trained heads look at on your own text: GPT-2, Llama 2/3 (and TinyLlama, SmolLM), Mistral, Qwen2/2.5 or Qwen3. A model is a folder from the &lt;a href=&quot;https://huggingface.co/gpt2&quot;&gt;Hugging Face Hub&lt;/a&gt; with &lt;code&gt;config.json&lt;/code&gt;, &lt;code&gt;model.safetensors&lt;/code&gt; and &lt;code&gt;tokenizer.json&lt;/code&gt; (or &lt;code&gt;vocab.json&lt;/code&gt; + &lt;code&gt;merges.txt&lt;/code&gt;), a &lt;code&gt;.gguf&lt;/code&gt; file (Q4_K_M, Q5_K_M, Q8_0, F16 …) or a model Ollama pulled. To download GPT-2 small (about 500 MB):&lt;/p&gt;&lt;pre&gt;pip install huggingface_hub
huggingface-cli download gpt2 config.json model.safetensors vocab.json merges.txt&lt;/pre&gt;&lt;p&gt;Models in the Hugging Face cache and in Ollama&apos;s store are listed below and open by a double click. An attention dump saved from any model (&lt;code&gt;.npy&lt;/code&gt; or &lt;code&gt;.safetensors&lt;/code&gt;, the README shows how) opens the same way.&lt;/p&gt;&lt;p&gt;The tutorial&apos;s walkthrough does not need a model: it stays in the main window.&lt;/p&gt;</source>
        <translation>&lt;h2&gt;尚未打开模型&lt;/h2&gt;&lt;p&gt;打开一个模型，看看训练好的各个头在你自己的文本上关注什么：GPT-2、Llama 2/3（以及 TinyLlama、SmolLM）、Mistral、Qwen2/2.5 或 Qwen3。模型可以是来自 &lt;a href=&quot;https://huggingface.co/gpt2&quot;&gt;Hugging Face Hub&lt;/a&gt; 的文件夹，包含 &lt;code&gt;config.json&lt;/code&gt;、&lt;code&gt;model.safetensors&lt;/code&gt; 和 &lt;code&gt;tokenizer.json&lt;/code&gt;（或 &lt;code&gt;vocab.json&lt;/code&gt; + &lt;code&gt;merges.txt&lt;/code&gt;），也可以是 &lt;code&gt;.gguf&lt;/code&gt; 文件（Q4_K_M、Q5_K_M、Q8_0、F16 …）或 Ollama 拉取的模型。下载 GPT-2 small（约 500 MB）：&lt;/p&gt;&lt;pre&gt;pip install huggingface_hub
huggingface-cli download gpt2 config.json model.safetensors vocab.json merges.txt&lt;/pre&gt;&lt;p&gt;Hugging Face 缓存和 Ollama 模型库中的模型会列在下方，双击即可打开。从任意模型保存的注意力转储（&lt;code&gt;.npy&lt;/code&gt; 或 &lt;code&gt;.safetensors&lt;/code&gt;，做法见 README）也以同样方式打开。&lt;/p&gt;&lt;p&gt;教程的演练不需要模型：它仍在主窗口中进行。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>In the Hugging Face cache (%1) and Ollama&apos;s store (%2):</source>
        <translation>Hugging Face 缓存（%1）和 Ollama 模型库（%2）中：</translation>
    </message>
    <message>
        <source>Open &amp;GGUF file…</source>
        <translation>打开 GGUF 文件(&amp;G)…</translation>
    </message>
    <message>
        <source>Models on this &amp;computer</source>
        <translation>本机上的模型(&amp;C)</translation>
    </message>
    <message>
        <source>%1 (cannot be opened: %2)</source>
        <translation>%1（无法打开：%2）</translation>
    </message>
    <message>
        <source>No models in %1 or %2</source>
        <translation>%1 和 %2 中没有模型</translation>
    </message>
    <message>
        <source>kv_cache: %1 tokens × %2 layers × %3 K/V heads × head_dim %4 × 2 (K and V) × 4 bytes = %5</source>
        <translation>kv_cache：%1 个词元 × %2 层 × %3 个 K/V 头 × head_dim %4 × 2（K 和 V）× 4 字节 = %5</translation>
    </message>
    <message>
        <source>Open a model folder</source>
        <translation>打开模型文件夹</translation>
    </message>
    <message>
        <source>Open a GGUF model file</source>
        <translation>打开 GGUF 模型文件</translation>
    </message>
    <message>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 模型 (*.gguf)</translation>
    </message>
    <message>
        <source>%1B parameters</source>
        <translation>%1B 参数</translation>
    </message>
    <message>
        <source>%1M parameters</source>
        <translation>%1M 参数</translation>
    </message>
    <message>
        <source>%1 parameters</source>
        <translation>%1 个参数</translation>
    </message>
    <message>
        <source>An encoder reads the whole text at once, every token seeing every other: it fills in masked tokens (the Masked LM tab) instead of generating.</source>
        <translation>编码器一次读入整段文本，每个词元都能看到其他所有词元：它填补被遮盖的词元（见“掩码语言模型”标签页），而不是生成下一个词元。</translation>
    </message>
    <message>
        <source>Sentence &amp;B:</source>
        <translation>句子 B(&amp;B)：</translation>
    </message>
    <message>
        <source>Optional second sentence: the model reads “[CLS] text [SEP] sentence B [SEP]”</source>
        <translation>可选的第二个句子：模型读入“[CLS] 文本 [SEP] 句子 B [SEP]”</translation>
    </message>
    <message>
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>A → A</source>
        <translation>A → A</translation>
    </message>
    <message>
        <source>A → B</source>
        <translation>A → B</translation>
    </message>
    <message>
        <source>B → A</source>
        <translation>B → A</translation>
    </message>
    <message>
        <source>B → B</source>
        <translation>B → B</translation>
    </message>
    <message>
        <source>Which cells to show: queries of one sentence (rows) attending to keys of one sentence (columns). A includes [CLS] and its [SEP].</source>
        <translation>显示哪些单元格：一个句子的查询（行）关注一个句子的键（列）。A 包括 [CLS] 和它的 [SEP]。</translation>
    </message>
    <message>
        <source>Many heads park their weight on [CLS] and [SEP]. Hiding them removes their rows and columns and divides each remaining row by its sum, so it adds up to 1 again.</source>
        <translation>许多头把权重“停放”在 [CLS] 和 [SEP] 上。隐藏它们会去掉对应的行和列，并把剩下的每一行除以该行之和，使其重新加起来等于 1。</translation>
    </message>
    <message>
        <source>Masked LM</source>
        <translation>掩码语言模型</translation>
    </message>
    <message>
        <source>Padding</source>
        <translation>填充</translation>
    </message>
    <message>
        <source>A batch holds sequences of one length: the shorter sentence is padded with [PAD] and attention_mask (1 real token, 0 padding) keeps every query&apos;s weight off the padding keys. Its weights on the real tokens are then those of the sentence alone.</source>
        <translation>一个批次中的序列长度相同：较短的句子用 [PAD] 填充，attention_mask（1 为真实词元，0 为填充）使每个查询不把权重放在填充键上。于是它在真实词元上的权重与单独运行该句子时相同。</translation>
    </message>
    <message>
        <source>attention_mask of the batch (rows: sentence A, sentence B)</source>
        <translation>批次的 attention_mask（行：句子 A、句子 B）</translation>
    </message>
    <message>
        <source>Type %1 in the text, or click a token in the strip above to mask it (click again to give it back): the model&apos;s most likely fillers for that position.</source>
        <translation>在文本中输入 %1，或点击上方词元条中的某个词元将其遮盖（再次点击可恢复）：这里显示模型认为该位置最可能的填充词元。</translation>
    </message>
    <message>
        <source>This tokenizer has no mask token: the model cannot fill one in.</source>
        <translation>这个分词器没有掩码词元：模型无法进行填充。</translation>
    </message>
    <message>
        <source>token %1</source>
        <translation>第 %1 个词元</translation>
    </message>
    <message>
        <source>Sentence A</source>
        <translation>句子 A</translation>
    </message>
    <message>
        <source>Sentence B</source>
        <translation>句子 B</translation>
    </message>
    <message>
        <source>queries</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>keys</source>
        <translation>键</translation>
    </message>
    <message>
        <source>%1 in the batch: layer %2 · head %3, %4 real tokens + %5 padding (hatched: keys the mask blocks)</source>
        <translation>%1 在批次中：第 %2 层 · 第 %3 个头，%4 个真实词元 + %5 个填充（斜线：被掩码屏蔽的键）</translation>
    </message>
    <message>
        <source>%1: in the batch vs alone, max |difference| over every layer and head = %2; largest weight on a padding key = %3</source>
        <translation>%1：批次中与单独运行相比，所有层和头上的最大 |差值| = %2；填充键上的最大权重 = %3</translation>
    </message>
    <message>
        <source>Sentence pair, queries → keys:</source>
        <translation>句对，查询 → 键：</translation>
    </message>
    <message>
        <source>token %1 (was “%2”)</source>
        <translation>第 %1 个词元（原为“%2”）</translation>
    </message>
    <message>
        <source>Hide %1</source>
        <translation>隐藏 %1</translation>
    </message>
    <message>
        <source>%1 at:</source>
        <translation>%1 位置：</translation>
    </message>
</context>
<context>
    <name>PresentationMode</name>
    <message>
        <source>&amp;Presentation mode</source>
        <translation>演示模式(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Reveal values row by row</source>
        <translation>逐行显示数值(&amp;R)</translation>
    </message>
    <message>
        <source>Space or ↓ shows the next row of the computed matrices, ↑ hides it again</source>
        <translation>空格或 ↓ 显示计算矩阵的下一行，↑ 将其再次隐藏</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;System</source>
        <translation>跟随系统(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>浅色(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>深色(&amp;D)</translation>
    </message>
    <message>
        <source>Leave presentation mode</source>
        <translation>退出演示模式</translation>
    </message>
    <message>
        <source>Presenting: the next token of a frame step, or the next step</source>
        <translation>演示时：分帧步骤的下一个词元，或下一步</translation>
    </message>
    <message>
        <source>Presenting: scroll a page that does not fit the screen</source>
        <translation>演示时：滚动放不下屏幕的页面</translation>
    </message>
    <message>
        <source>Reveal on: show the next row of the computed matrices, then move on</source>
        <translation>逐行显示开启时：显示计算所得矩阵的下一行，全部显示后继续</translation>
    </message>
    <message>
        <source>Reveal on: hide the last row shown</source>
        <translation>逐行显示开启时：隐藏最后显示的一行</translation>
    </message>
</context>
<context>
    <name>StepText</name>
    <message>
        <source>Input embeddings</source>
        <translation>输入嵌入</translation>
    </message>
    <message>
        <source>Attention weights: normalising the scores</source>
        <translation>注意力权重：对分数进行归一化</translation>
    </message>
    <message>
        <source>All tokens at once</source>
        <translation>一次计算所有词元</translation>
    </message>
    <message>
        <source>Trainable weights W_q, W_k, W_v</source>
        <translation>可训练权重 W_q、W_k、W_v</translation>
    </message>
    <message>
        <source>Queries, keys and values</source>
        <translation>查询、键和值</translation>
    </message>
    <message>
        <source>Scaled dot-product attention</source>
        <translation>缩放点积注意力</translation>
    </message>
    <message>
        <source>The SelfAttention class, v1 and v2</source>
        <translation>SelfAttention 类：v1 与 v2</translation>
    </message>
    <message>
        <source>Causal mask, method 1: mask and renormalise</source>
        <translation>因果掩码，方法一：掩码后重新归一化</translation>
    </message>
    <message>
        <source>&lt;p&gt;A language model must not look at future tokens. Multiply the weights by a lower-triangular mask (1 on and below the diagonal), then divide each row by its new sum so that it adds up to 1 again.&lt;/p&gt;</source>
        <translation>&lt;p&gt;语言模型不能看到未来的词元。将权重乘以一个下三角掩码（对角线及以下为 1），再把每一行除以新的行和，使其重新加起来等于 1。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Causal mask, method 2: −∞ before softmax</source>
        <translation>因果掩码，方法二：softmax 之前填充 −∞</translation>
    </message>
    <message>
        <source>&lt;p&gt;Fill the scores above the diagonal with −∞, then apply softmax. Because exp(−∞) = 0 the future gets zero weight and every row sums to 1 in a single step.&lt;/p&gt;&lt;p&gt;The difference matrix shows that both methods give the same weights.&lt;/p&gt;&lt;p&gt;The fill goes into the raw scores, before the division by √d_k, as &lt;code&gt;CausalAttention&lt;/code&gt; does it; BERT and GPT-2 divide first and fill after. With −∞ the order makes no difference; a finite fill is divided by √d_k only in the first order.&lt;/p&gt;</source>
        <translation>&lt;p&gt;把对角线以上的分数填充为 −∞，再做 softmax。由于 exp(−∞) = 0，未来的词元权重为 0，并且每一行一步就加起来等于 1。&lt;/p&gt;&lt;p&gt;差值矩阵表明两种方法得到的权重相同。&lt;/p&gt;&lt;p&gt;填充值放进原始分数里，在除以 √d_k 之前，这正是 &lt;code&gt;CausalAttention&lt;/code&gt; 的做法；BERT 和 GPT-2 则先除再填充。用 −∞ 时两种顺序没有区别；有限的填充值只有在第一种顺序下才会被 √d_k 除。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Dropout on the attention weights</source>
        <translation>对注意力权重做 Dropout</translation>
    </message>
    <message>
        <source>CausalAttention on a batch of two</source>
        <translation>批处理：CausalAttention</translation>
    </message>
    <message>
        <source>Multi-head attention</source>
        <translation>多头注意力</translation>
    </message>
    <message>
        <source>Cross-attention</source>
        <translation>交叉注意力</translation>
    </message>
    <message>
        <source>KV caching</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <source>Inputs X</source>
        <translation>输入 X</translation>
    </message>
    <message>
        <source>Divided by the sum</source>
        <translation>除以总和</translation>
    </message>
    <message>
        <source>Naive softmax</source>
        <translation>朴素 softmax</translation>
    </message>
    <message>
        <source>Stable softmax</source>
        <translation>稳定 softmax</translation>
    </message>
    <message>
        <source>Attention scores ω</source>
        <translation>注意力分数 ω</translation>
    </message>
    <message>
        <source>Attention weights α</source>
        <translation>注意力权重 α</translation>
    </message>
    <message>
        <source>Weights without scaling</source>
        <translation>未缩放的权重</translation>
    </message>
    <message>
        <source>Context vectors Z</source>
        <translation>上下文向量 Z</translation>
    </message>
    <message>
        <source>W_query</source>
        <translation>W_query</translation>
    </message>
    <message>
        <source>W_key</source>
        <translation>W_key</translation>
    </message>
    <message>
        <source>W_value</source>
        <translation>W_value</translation>
    </message>
    <message>
        <source>Queries Q</source>
        <translation>查询 Q</translation>
    </message>
    <message>
        <source>Keys K</source>
        <translation>键 K</translation>
    </message>
    <message>
        <source>Values V</source>
        <translation>值 V</translation>
    </message>
    <message>
        <source>v1: attention weights</source>
        <translation>v1：注意力权重</translation>
    </message>
    <message>
        <source>v1: values</source>
        <translation>v1：值</translation>
    </message>
    <message>
        <source>v1: context vectors</source>
        <translation>v1：上下文向量</translation>
    </message>
    <message>
        <source>v2: attention weights</source>
        <translation>v2：注意力权重</translation>
    </message>
    <message>
        <source>v2: values</source>
        <translation>v2：值</translation>
    </message>
    <message>
        <source>v2: context vectors</source>
        <translation>v2：上下文向量</translation>
    </message>
    <message>
        <source>Causal mask (lower triangle)</source>
        <translation>因果掩码（下三角）</translation>
    </message>
    <message>
        <source>Weights × mask</source>
        <translation>权重 × 掩码</translation>
    </message>
    <message>
        <source>Causal attention weights</source>
        <translation>因果注意力权重</translation>
    </message>
    <message>
        <source>Scores with −∞ above the diagonal</source>
        <translation>对角线以上填充 −∞ 的分数</translation>
    </message>
    <message>
        <source>Method 1 (renormalised)</source>
        <translation>方法一（重新归一化）</translation>
    </message>
    <message>
        <source>|method 2 − method 1|</source>
        <translation>|方法二 − 方法一|</translation>
    </message>
    <message>
        <source>Kept (1) and dropped (0)</source>
        <translation>保留 (1) 与丢弃 (0)</translation>
    </message>
    <message>
        <source>Batch item 1: weights</source>
        <translation>批次样本 1：权重</translation>
    </message>
    <message>
        <source>Batch item 1: values</source>
        <translation>批次样本 1：值</translation>
    </message>
    <message>
        <source>Batch item 1: context vectors</source>
        <translation>批次样本 1：上下文向量</translation>
    </message>
    <message>
        <source>Batch item 2: weights</source>
        <translation>批次样本 2：权重</translation>
    </message>
    <message>
        <source>Batch item 2: values</source>
        <translation>批次样本 2：值</translation>
    </message>
    <message>
        <source>Batch item 2: context vectors</source>
        <translation>批次样本 2：上下文向量</translation>
    </message>
    <message>
        <source>Wrapper, head 1</source>
        <translation>包装类，头 1</translation>
    </message>
    <message>
        <source>Wrapper, head 2</source>
        <translation>包装类，头 2</translation>
    </message>
    <message>
        <source>Wrapper: heads concatenated</source>
        <translation>包装类：各头拼接</translation>
    </message>
    <message>
        <source>Fused W_query, split by head</source>
        <translation>融合的 W_query，按头切分</translation>
    </message>
    <message>
        <source>Head 1 weights</source>
        <translation>头 1 的权重</translation>
    </message>
    <message>
        <source>Head 2 weights</source>
        <translation>头 2 的权重</translation>
    </message>
    <message>
        <source>Heads concatenated</source>
        <translation>各头拼接</translation>
    </message>
    <message>
        <source>out_proj</source>
        <translation>out_proj</translation>
    </message>
    <message>
        <source>Output after out_proj</source>
        <translation>out_proj 之后的输出</translation>
    </message>
    <message>
        <source>Cross-attention weights</source>
        <translation>交叉注意力权重</translation>
    </message>
    <message>
        <source>Context vectors</source>
        <translation>上下文向量</translation>
    </message>
    <message>
        <source>Full causal pass</source>
        <translation>完整的因果计算</translation>
    </message>
    <message>
        <source>New query</source>
        <translation>新的查询</translation>
    </message>
    <message>
        <source>Cached keys</source>
        <translation>缓存的键</translation>
    </message>
    <message>
        <source>Cached values</source>
        <translation>缓存的值</translation>
    </message>
    <message>
        <source>New weights row</source>
        <translation>新的权重行</translation>
    </message>
    <message>
        <source>Outputs with the cache</source>
        <translation>使用缓存的输出</translation>
    </message>
    <message>
        <source>Largest difference</source>
        <translation>最大差值</translation>
    </message>
    <message>
        <source>Dropout probability p</source>
        <translation>Dropout 概率 p</translation>
    </message>
    <message>
        <source>Batch size</source>
        <translation>批次大小</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>词元数</translation>
    </message>
    <message>
        <source>d_out</source>
        <translation>d_out</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>头数</translation>
    </message>
    <message>
        <source>head_dim</source>
        <translation>head_dim</translation>
    </message>
    <message>
        <source>Multiplications with the cache</source>
        <translation>使用缓存的乘法次数</translation>
    </message>
    <message>
        <source>Multiplications without the cache</source>
        <translation>不使用缓存的乘法次数</translation>
    </message>
    <message>
        <source>Tokens in the cache</source>
        <translation>缓存中的词元数</translation>
    </message>
    <message>
        <source>Cache size (bytes)</source>
        <translation>缓存大小（字节）</translation>
    </message>
    <message>
        <source>&lt;p&gt;Each token of the sentence &lt;i&gt;“{sentence}”&lt;/i&gt; is a vector of d_in = {d_in} numbers, its &lt;b&gt;embedding&lt;/b&gt; x&lt;sup&gt;(i)&lt;/sup&gt;.&lt;/p&gt;&lt;p&gt;Self-attention computes, for every token, a &lt;b&gt;context vector&lt;/b&gt; z&lt;sup&gt;(i)&lt;/sup&gt; that mixes information from all {num_tokens} tokens. We follow token {query_number}, &lt;i&gt;{query_token}&lt;/i&gt;, x&lt;sup&gt;({query_number})&lt;/sup&gt;.&lt;/p&gt;</source>
        <translation>&lt;p&gt;句子 &lt;i&gt;“{sentence}”&lt;/i&gt; 中的每个词元都是一个由 d_in = {d_in} 个数构成的向量，即它的&lt;b&gt;嵌入&lt;/b&gt; x&lt;sup&gt;(i)&lt;/sup&gt;。&lt;/p&gt;&lt;p&gt;自注意力为每个词元计算一个&lt;b&gt;上下文向量&lt;/b&gt; z&lt;sup&gt;(i)&lt;/sup&gt;，它融合了全部 {num_tokens} 个词元的信息。我们以第 {query_number} 个词元 &lt;i&gt;{query_token}&lt;/i&gt;（x&lt;sup&gt;({query_number})&lt;/sup&gt;）为例。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Attention scores for “{query_token}”</source>
        <translation>“{query_token}”的注意力分数</translation>
    </message>
    <message>
        <source>&lt;p&gt;The &lt;b&gt;query&lt;/b&gt; is x&lt;sup&gt;({query_number})&lt;/sup&gt;. Its attention score with every token is a dot product:&lt;/p&gt;&lt;p align=center&gt;ω&lt;sub&gt;{query_number}j&lt;/sub&gt; = x&lt;sup&gt;({query_number})&lt;/sup&gt; · x&lt;sup&gt;(j)&lt;/sup&gt; = Σ&lt;sub&gt;k&lt;/sub&gt; x&lt;sup&gt;({query_number})&lt;/sup&gt;&lt;sub&gt;k&lt;/sub&gt; x&lt;sup&gt;(j)&lt;/sup&gt;&lt;sub&gt;k&lt;/sub&gt;&lt;/p&gt;&lt;p&gt;The larger the dot product, the more the two vectors point the same way: &lt;i&gt;{query_token}&lt;/i&gt; scores highest with &lt;i&gt;{best_token}&lt;/i&gt; ({best_score}) and lowest with &lt;i&gt;{worst_token}&lt;/i&gt; ({worst_score}).&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;查询&lt;/b&gt;（query）是 x&lt;sup&gt;({query_number})&lt;/sup&gt;。它与每个词元的注意力分数是一个点积：&lt;/p&gt;&lt;p align=center&gt;ω&lt;sub&gt;{query_number}j&lt;/sub&gt; = x&lt;sup&gt;({query_number})&lt;/sup&gt; · x&lt;sup&gt;(j)&lt;/sup&gt; = Σ&lt;sub&gt;k&lt;/sub&gt; x&lt;sup&gt;({query_number})&lt;/sup&gt;&lt;sub&gt;k&lt;/sub&gt; x&lt;sup&gt;(j)&lt;/sup&gt;&lt;sub&gt;k&lt;/sub&gt;&lt;/p&gt;&lt;p&gt;点积越大，两个向量的方向越接近：&lt;i&gt;{query_token}&lt;/i&gt; 与 &lt;i&gt;{best_token}&lt;/i&gt; 的分数最高（{best_score}），与 &lt;i&gt;{worst_token}&lt;/i&gt; 的分数最低（{worst_score}）。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Scores become &lt;b&gt;weights&lt;/b&gt; α&lt;sub&gt;{query_number}j&lt;/sub&gt; that are positive and sum to 1. Dividing by the sum works here but fails for negative scores. &lt;b&gt;Softmax&lt;/b&gt; always gives positive weights:&lt;/p&gt;&lt;p align=center&gt;α&lt;sub&gt;{query_number}j&lt;/sub&gt; = exp(ω&lt;sub&gt;{query_number}j&lt;/sub&gt;) / Σ&lt;sub&gt;k&lt;/sub&gt; exp(ω&lt;sub&gt;{query_number}k&lt;/sub&gt;)&lt;/p&gt;&lt;p&gt;Computed naively, exp() overflows a float for scores above about 88.7. The last three matrices multiply the scores by {large_factor} (largest {large_max}): the naive softmax gives NaN for {large_nan_count} of the {num_tokens} weights, while the stable softmax subtracts the row maximum first and gets weights that sum to 1.&lt;/p&gt;</source>
        <translation>&lt;p&gt;分数被转换为&lt;b&gt;权重&lt;/b&gt; α&lt;sub&gt;{query_number}j&lt;/sub&gt;：全为正且总和为 1。直接除以总和在这里可行，但遇到负分数就会出错。&lt;b&gt;softmax&lt;/b&gt; 总能给出正的权重：&lt;/p&gt;&lt;p align=center&gt;α&lt;sub&gt;{query_number}j&lt;/sub&gt; = exp(ω&lt;sub&gt;{query_number}j&lt;/sub&gt;) / Σ&lt;sub&gt;k&lt;/sub&gt; exp(ω&lt;sub&gt;{query_number}k&lt;/sub&gt;)&lt;/p&gt;&lt;p&gt;如果朴素地计算，分数超过约 88.7 时 exp() 会使 float 溢出。最后三个矩阵把分数乘以 {large_factor}（最大值 {large_max}）：朴素 softmax 在 {num_tokens} 个权重中有 {large_nan_count} 个得到 NaN，而稳定的 softmax 先减去每行的最大值，得到的权重总和为 1。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>The context vector z⁽{query_sup}⁾</source>
        <translation>上下文向量 z⁽{query_sup}⁾</translation>
    </message>
    <message>
        <source>&lt;p&gt;The context vector of &lt;i&gt;{query_token}&lt;/i&gt; is the sum of all embeddings, each weighted by its attention weight:&lt;/p&gt;&lt;p align=center&gt;z&lt;sup&gt;({query_number})&lt;/sup&gt; = Σ&lt;sub&gt;j&lt;/sub&gt; α&lt;sub&gt;{query_number}j&lt;/sub&gt; x&lt;sup&gt;(j)&lt;/sup&gt;&lt;/p&gt;&lt;p&gt;Tokens with larger weights contribute more.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;i&gt;{query_token}&lt;/i&gt; 的上下文向量是所有嵌入按注意力权重加权后的和：&lt;/p&gt;&lt;p align=center&gt;z&lt;sup&gt;({query_number})&lt;/sup&gt; = Σ&lt;sub&gt;j&lt;/sub&gt; α&lt;sub&gt;{query_number}j&lt;/sub&gt; x&lt;sup&gt;(j)&lt;/sup&gt;&lt;/p&gt;&lt;p&gt;权重越大的词元贡献越多。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;In matrix form every token is a query at the same time:&lt;/p&gt;&lt;p align=center&gt;Ω = X X&lt;sup&gt;T&lt;/sup&gt; &amp;nbsp;({num_tokens} × {num_tokens}), &amp;nbsp; A = softmax(Ω) row by row, &amp;nbsp; Z = A X &amp;nbsp;({num_tokens} × {d_in})&lt;/p&gt;&lt;p&gt;Row {query_number} repeats what the last three steps computed for &lt;i&gt;{query_token}&lt;/i&gt;.&lt;/p&gt;</source>
        <translation>&lt;p&gt;写成矩阵形式，每个词元同时都是查询：&lt;/p&gt;&lt;p align=center&gt;Ω = X X&lt;sup&gt;T&lt;/sup&gt; &amp;nbsp;({num_tokens} × {num_tokens})， &amp;nbsp; A = 逐行 softmax(Ω)， &amp;nbsp; Z = A X &amp;nbsp;({num_tokens} × {d_in})&lt;/p&gt;&lt;p&gt;第 {query_number} 行就是前三步为 &lt;i&gt;{query_token}&lt;/i&gt; 计算的结果。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Self-attention in a transformer &lt;b&gt;learns&lt;/b&gt; three matrices, each d_in × d_out = {d_in} × {d_out}: W&lt;sub&gt;q&lt;/sub&gt; for queries, W&lt;sub&gt;k&lt;/sub&gt; for keys and W&lt;sub&gt;v&lt;/sub&gt; for values.&lt;/p&gt;&lt;p&gt;&lt;code&gt;torch.manual_seed({seed})&lt;/code&gt; and &lt;code&gt;torch.rand&lt;/code&gt; give the same numbers as in PyTorch; training would change them.&lt;/p&gt;</source>
        <translation>&lt;p&gt;Transformer 中的自注意力会&lt;b&gt;学习&lt;/b&gt;三个矩阵，大小均为 d_in × d_out = {d_in} × {d_out}：W&lt;sub&gt;q&lt;/sub&gt; 用于查询，W&lt;sub&gt;k&lt;/sub&gt; 用于键，W&lt;sub&gt;v&lt;/sub&gt; 用于值。&lt;/p&gt;&lt;p&gt;&lt;code&gt;torch.manual_seed({seed})&lt;/code&gt; 和 &lt;code&gt;torch.rand&lt;/code&gt; 给出与 PyTorch 中相同的数值；训练会改变它们。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Every token is projected three times:&lt;/p&gt;&lt;p align=center&gt;q&lt;sup&gt;(i)&lt;/sup&gt; = x&lt;sup&gt;(i)&lt;/sup&gt; W&lt;sub&gt;q&lt;/sub&gt;, &amp;nbsp; k&lt;sup&gt;(i)&lt;/sup&gt; = x&lt;sup&gt;(i)&lt;/sup&gt; W&lt;sub&gt;k&lt;/sub&gt;, &amp;nbsp; v&lt;sup&gt;(i)&lt;/sup&gt; = x&lt;sup&gt;(i)&lt;/sup&gt; W&lt;sub&gt;v&lt;/sub&gt;&lt;/p&gt;&lt;p&gt;The &lt;b&gt;query&lt;/b&gt; asks, the &lt;b&gt;keys&lt;/b&gt; are matched against it, and the &lt;b&gt;values&lt;/b&gt; are what gets mixed. The highlighted row is q&lt;sup&gt;({query_number})&lt;/sup&gt; of &lt;i&gt;{query_token}&lt;/i&gt;.&lt;/p&gt;</source>
        <translation>&lt;p&gt;每个词元被投影三次：&lt;/p&gt;&lt;p align=center&gt;q&lt;sup&gt;(i)&lt;/sup&gt; = x&lt;sup&gt;(i)&lt;/sup&gt; W&lt;sub&gt;q&lt;/sub&gt;， &amp;nbsp; k&lt;sup&gt;(i)&lt;/sup&gt; = x&lt;sup&gt;(i)&lt;/sup&gt; W&lt;sub&gt;k&lt;/sub&gt;， &amp;nbsp; v&lt;sup&gt;(i)&lt;/sup&gt; = x&lt;sup&gt;(i)&lt;/sup&gt; W&lt;sub&gt;v&lt;/sub&gt;&lt;/p&gt;&lt;p&gt;&lt;b&gt;查询&lt;/b&gt;负责提问，&lt;b&gt;键&lt;/b&gt;与查询进行匹配，&lt;b&gt;值&lt;/b&gt;是被加权混合的内容。高亮的一行是 &lt;i&gt;{query_token}&lt;/i&gt; 的 q&lt;sup&gt;({query_number})&lt;/sup&gt;。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Scores are ω&lt;sub&gt;ij&lt;/sub&gt; = q&lt;sup&gt;(i)&lt;/sup&gt; · k&lt;sup&gt;(j)&lt;/sup&gt;; softmax gets the &lt;b&gt;scaled score&lt;/b&gt; ω̃&lt;sub&gt;ij&lt;/sub&gt; = ω&lt;sub&gt;ij&lt;/sub&gt; / √d&lt;sub&gt;k&lt;/sub&gt;:&lt;/p&gt;&lt;p align=center&gt;α = softmax(ω̃) = softmax(Q K&lt;sup&gt;T&lt;/sup&gt; / √d&lt;sub&gt;k&lt;/sub&gt;), &amp;nbsp; Z = α V&lt;/p&gt;&lt;p&gt;Why scale? Dot products of wide vectors grow like √d&lt;sub&gt;k&lt;/sub&gt;; unscaled, softmax turns almost one-hot and its gradients vanish. At d&lt;sub&gt;k&lt;/sub&gt; = {d_k} nothing saturates: the largest weight of a row is {max_unscaled} on average unscaled, {max_scaled} scaled. The last two matrices use d&lt;sub&gt;k&lt;/sub&gt; = {wide_d_k} (random q, k from &lt;code&gt;torch.randn&lt;/code&gt;, seed {seed}): {wide_max_unscaled} unscaled, close to one-hot; {wide_max_scaled} divided by √{wide_d_k} = {wide_sqrt_d_k}.&lt;/p&gt;</source>
        <translation>&lt;p&gt;分数为 ω&lt;sub&gt;ij&lt;/sub&gt; = q&lt;sup&gt;(i)&lt;/sup&gt; · k&lt;sup&gt;(j)&lt;/sup&gt;；送入 softmax 的是&lt;b&gt;缩放后的分数&lt;/b&gt; ω̃&lt;sub&gt;ij&lt;/sub&gt; = ω&lt;sub&gt;ij&lt;/sub&gt; / √d&lt;sub&gt;k&lt;/sub&gt;：&lt;/p&gt;&lt;p align=center&gt;α = softmax(ω̃) = softmax(Q K&lt;sup&gt;T&lt;/sup&gt; / √d&lt;sub&gt;k&lt;/sub&gt;)， &amp;nbsp; Z = α V&lt;/p&gt;&lt;p&gt;为什么要缩放？维度越高，点积大约按 √d&lt;sub&gt;k&lt;/sub&gt; 增长；不缩放时 softmax 接近 one-hot，梯度随之消失。在 d&lt;sub&gt;k&lt;/sub&gt; = {d_k} 时还没有饱和：每行最大的权重平均为 {max_unscaled}（未缩放）和 {max_scaled}（缩放后）。最后两个矩阵使用 d&lt;sub&gt;k&lt;/sub&gt; = {wide_d_k}（随机的 q、k 来自 &lt;code&gt;torch.randn&lt;/code&gt;，种子 {seed}）：未缩放时为 {wide_max_unscaled}，接近 one-hot；除以 √{wide_d_k} = {wide_sqrt_d_k} 后为 {wide_max_scaled}。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;The same computation packed into a module. &lt;b&gt;v1&lt;/b&gt; keeps W as &lt;code&gt;nn.Parameter(torch.rand(d_in, d_out))&lt;/code&gt;; &lt;b&gt;v2&lt;/b&gt; uses &lt;code&gt;nn.Linear&lt;/code&gt; layers, initialised uniformly in ±1/√d_in = ±{linear_bound} and able to add a bias.&lt;/p&gt;&lt;p&gt;Different weights, hence different context vectors: v2&apos;s are &lt;code&gt;{v2_first_row}&lt;/code&gt;.&lt;/p&gt;</source>
        <translation>&lt;p&gt;把同样的计算封装成一个模块。&lt;b&gt;v1&lt;/b&gt; 用 &lt;code&gt;nn.Parameter(torch.rand(d_in, d_out))&lt;/code&gt; 保存 W；&lt;b&gt;v2&lt;/b&gt; 使用 &lt;code&gt;nn.Linear&lt;/code&gt; 层，其权重在 ±1/√d_in = ±{linear_bound} 内均匀初始化，并且可以加偏置。&lt;/p&gt;&lt;p&gt;权重不同，上下文向量也就不同：v2 的结果是 &lt;code&gt;{v2_first_row}&lt;/code&gt;。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;During &lt;b&gt;training&lt;/b&gt;, dropout with p = {dropout_p} sets each weight to 0 with probability {dropout_p} and divides the kept ones by 1 − p: α′ = α / (1 − p) = {dropout_scale} · α, so the expected value stays the same. This draw keeps {kept_unmasked} of the {unmasked_cells} weights on and below the diagonal and drops {dropped_cells}.&lt;/p&gt;&lt;p&gt;In &lt;b&gt;inference&lt;/b&gt; (&lt;code&gt;model.eval()&lt;/code&gt;) dropout does nothing: α′ = α. Switch between the two modes to compare.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;训练&lt;/b&gt;时，p = {dropout_p} 的 dropout 以 {dropout_p} 的概率把每个权重置为 0，并把保留下来的权重除以 1 − p：α′ = α / (1 − p) = {dropout_scale} · α，使期望值保持不变。这次抽样在对角线及以下的 {unmasked_cells} 个权重中保留了 {kept_unmasked} 个，丢弃了 {dropped_cells} 个。&lt;/p&gt;&lt;p&gt;&lt;b&gt;推理&lt;/b&gt;时（&lt;code&gt;model.eval()&lt;/code&gt;）dropout 不起作用：α′ = α。可以在两种模式之间切换进行比较。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;The &lt;code&gt;CausalAttention&lt;/code&gt; class combines the projections, the causal mask and dropout, and accepts batches: an input of shape {batch_shape} gives context vectors of shape {context_shape}. The two copies of the sentence give the same result.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;code&gt;CausalAttention&lt;/code&gt; 类把投影、因果掩码和 dropout 组合在一起，并支持批处理：形状为 {batch_shape} 的输入得到形状为 {context_shape} 的上下文向量。两份相同的句子得到相同的结果。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Several &lt;b&gt;heads&lt;/b&gt; attend in parallel, each with its own W&lt;sub&gt;q&lt;/sub&gt;, W&lt;sub&gt;k&lt;/sub&gt;, W&lt;sub&gt;v&lt;/sub&gt;; their outputs are concatenated.&lt;/p&gt;&lt;p&gt;The wrapper stacks {num_heads} CausalAttention modules. &lt;code&gt;MultiHeadAttention&lt;/code&gt; splits the columns of one wide W&lt;sub&gt;q&lt;/sub&gt; ({d_in} × {fused_out}) between the heads (head_dim = {fused_out} / {num_heads} = {head_dim}): columns {head1_cols} belong to head 1, columns {head2_cols} to head 2. It computes all heads at once, concatenates them in that order and mixes them with &lt;code&gt;out_proj&lt;/code&gt;.&lt;/p&gt;</source>
        <translation>&lt;p&gt;多个&lt;b&gt;头&lt;/b&gt;并行计算注意力，每个头有自己的 W&lt;sub&gt;q&lt;/sub&gt;、W&lt;sub&gt;k&lt;/sub&gt;、W&lt;sub&gt;v&lt;/sub&gt;；它们的输出被拼接起来。&lt;/p&gt;&lt;p&gt;包装类（wrapper）把 {num_heads} 个 CausalAttention 模块堆叠起来。&lt;code&gt;MultiHeadAttention&lt;/code&gt; 把一个宽的 W&lt;sub&gt;q&lt;/sub&gt;（{d_in} × {fused_out}）的列分给各个头（head_dim = {fused_out} / {num_heads} = {head_dim}）：第 {head1_cols} 列属于头 1，第 {head2_cols} 列属于头 2。它一次算出所有头，按这个顺序拼接，再用 &lt;code&gt;out_proj&lt;/code&gt; 混合。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;In a translation model the decoder&apos;s tokens ask and the encoder&apos;s tokens answer: &lt;b&gt;queries&lt;/b&gt; come from one sequence, &lt;b&gt;keys and values&lt;/b&gt; from another.&lt;/p&gt;&lt;p&gt;The weight matrix is rectangular, {num_tokens} × {num_source}: each target token spreads its attention over the {num_source} tokens of the Chinese source “{source_sentence}”.&lt;/p&gt;</source>
        <translation>&lt;p&gt;在翻译模型中，解码器的词元提问，编码器的词元回答：&lt;b&gt;查询&lt;/b&gt;来自一个序列，&lt;b&gt;键和值&lt;/b&gt;来自另一个序列。&lt;/p&gt;&lt;p&gt;权重矩阵是矩形的，{num_tokens} × {num_source}：每个目标词元把注意力分配到中文源句“{source_sentence}”的 {num_source} 个词元上。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;When a model generates text one token at a time, the keys and values of past tokens never change. A &lt;b&gt;KV cache&lt;/b&gt; keeps them, so each new token computes only its own query, key and value and one row of attention per head.&lt;/p&gt;&lt;p&gt;This is step 14&apos;s &lt;code&gt;MultiHeadAttention&lt;/code&gt;: {num_heads} heads of head_dim {head_dim}. The cache keeps their keys and values side by side, columns {head1_cols} for head 1 and {head2_cols} for head 2, and each head attends with its own columns. Step through the {num_tokens} tokens: the cache grows by one row, the output equals the full causal pass, and the counters show the multiplications saved.&lt;/p&gt;</source>
        <translation>&lt;p&gt;模型逐个生成词元时，过去词元的键和值不会改变。&lt;b&gt;KV 缓存&lt;/b&gt;把它们保存下来，于是每个新词元只需计算自己的查询、键和值，以及每个头的一行注意力。&lt;/p&gt;&lt;p&gt;这里用的是第 14 步的 &lt;code&gt;MultiHeadAttention&lt;/code&gt;：{num_heads} 个头，head_dim 为 {head_dim}。缓存把各头的键和值并排保存，第 {head1_cols} 列属于头 1，第 {head2_cols} 列属于头 2，每个头只用自己的列计算注意力。逐个经过这 {num_tokens} 个词元：缓存每次增加一行，输出与完整的因果计算相同，计数器显示节省了多少次乘法。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Query x⁽{query_sup}⁾</source>
        <translation>查询 x⁽{query_sup}⁾</translation>
    </message>
    <message>
        <source>Scores ω{query_sub}ⱼ</source>
        <translation>分数 ω{query_sub}ⱼ</translation>
    </message>
    <message>
        <source>Scores × {large_factor}</source>
        <translation>分数 × {large_factor}</translation>
    </message>
    <message>
        <source>Naive softmax of scores × {large_factor}</source>
        <translation>分数 × {large_factor} 的朴素 softmax</translation>
    </message>
    <message>
        <source>Stable softmax of scores × {large_factor}</source>
        <translation>分数 × {large_factor} 的稳定 softmax</translation>
    </message>
    <message>
        <source>Weights α{query_sub}ⱼ</source>
        <translation>权重 α{query_sub}ⱼ</translation>
    </message>
    <message>
        <source>Context vector z⁽{query_sup}⁾</source>
        <translation>上下文向量 z⁽{query_sup}⁾</translation>
    </message>
    <message>
        <source>Scaled scores ω̃ = ω / √d_k</source>
        <translation>缩放后的分数 ω̃ = ω / √d_k</translation>
    </message>
    <message>
        <source>d_k = {wide_d_k}: weights without scaling</source>
        <translation>d_k = {wide_d_k}：未缩放的权重</translation>
    </message>
    <message>
        <source>d_k = {wide_d_k}: weights of ω / √d_k</source>
        <translation>d_k = {wide_d_k}：ω / √d_k 的权重</translation>
    </message>
    <message>
        <source>Weights after dropout α′</source>
        <translation>dropout 之后的权重 α′</translation>
    </message>
    <message>
        <source>Cross-attention scaled scores ω̃</source>
        <translation>交叉注意力的缩放分数 ω̃</translation>
    </message>
    <message>
        <source>Head %1 · %2</source>
        <translation>头 %1 · %2</translation>
    </message>
    <message>
        <source>Weights kept</source>
        <translation>保留的权重</translation>
    </message>
    <message>
        <source>Masks beyond causal</source>
        <translation>因果之外的掩码</translation>
    </message>
    <message>
        <source>&lt;p&gt;Step 11&apos;s causal mask is one of several. A mask says which keys each query may see: 1 = attend, 0 = blocked, and blocked scores become −∞ before softmax (&lt;code&gt;masked_fill(mask == 0, -inf)&lt;/code&gt;). Switch between three masks on the same scores; step 11&apos;s causal weights stay beside them:&lt;/p&gt;&lt;p&gt;&lt;b&gt;sliding window&lt;/b&gt;: each token sees only the last {window} tokens, itself included (Mistral, Longformer), so the cost grows with the window, not the length.&lt;/p&gt;&lt;p&gt;&lt;b&gt;bidirectional&lt;/b&gt;: an encoder (BERT) sees every token, before and after.&lt;/p&gt;&lt;p&gt;&lt;b&gt;padding&lt;/b&gt;: a batch holds sentences of different lengths, so the shorter one is filled up with {num_padding} padding tokens after its {valid_tokens} real ones. Padded keys get no weight; the padded query rows (from row {first_padding}) are computed and then ignored. Sentence 1 is step 11 itself; the matrices show sentence 2, whose real rows equal step 11&apos;s first {valid_tokens} rows: a causal token never sees what follows it.&lt;/p&gt;</source>
        <translation>&lt;p&gt;第 11 步的因果掩码只是掩码的一种。掩码规定每个查询能看到哪些键：1 = 关注，0 = 屏蔽；被屏蔽的分数在 softmax 之前变为 −∞（&lt;code&gt;masked_fill(mask == 0, -inf)&lt;/code&gt;）。在同一组分数上切换三种掩码；第 11 步的因果权重始终显示在旁边作对照：&lt;/p&gt;&lt;p&gt;&lt;b&gt;滑动窗口&lt;/b&gt;：每个词元只看最近的 {window} 个词元（包括它自己）（Mistral、Longformer），因此计算量随窗口而不是随长度增长。&lt;/p&gt;&lt;p&gt;&lt;b&gt;双向&lt;/b&gt;：编码器（BERT）能看到前后所有词元。&lt;/p&gt;&lt;p&gt;&lt;b&gt;填充&lt;/b&gt;：一个批次里的句子长短不一，较短的句子在 {valid_tokens} 个真实词元之后补上 {num_padding} 个填充词元。填充的键得不到任何权重；填充的查询行（从第 {first_padding} 行起）照常计算，随后被忽略。句子 1 就是第 11 步本身；矩阵显示的是句子 2，它的真实行等于第 11 步的前 {valid_tokens} 行：因果注意力中的词元本来就看不到它后面的词元。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>FlashAttention&apos;s tiles</source>
        <translation>FlashAttention 的分块</translation>
    </message>
    <message>
        <source>&lt;p&gt;Step 11 stores the whole {num_tokens} × {num_tokens} matrix of weights. FlashAttention never does: it walks over tiles of {query_tile} queries × {key_tile} key, and keeps per query only a running maximum &lt;b&gt;m&lt;/b&gt;, a running sum &lt;b&gt;ℓ&lt;/b&gt; of exp(ω̃ − m) and an unnormalised output &lt;b&gt;o&lt;/b&gt;.&lt;/p&gt;&lt;p&gt;When a tile raises the maximum, what was summed so far was computed against the old maximum: ℓ and o are multiplied by &lt;b&gt;s = exp(m&lt;sub&gt;old&lt;/sub&gt; − m&lt;sub&gt;new&lt;/sub&gt;)&lt;/b&gt;. After a query tile&apos;s last key tile, z = o / ℓ, which equals step 11&apos;s context vectors. Of the {num_tiles} tiles, {tiles_skipped} lie above the diagonal and are skipped: every key comes after every query.&lt;/p&gt;&lt;p&gt;At T = {big_t} tokens the full matrix takes T² × 4 = {scores_bytes} bytes per head; the tiles need only m and ℓ per query and one tile, (2T + {query_tile} × {key_tile}) × 4 = {tiled_bytes} bytes, about {memory_ratio} times less. The engine&apos;s own fast path (model/fast_attention.cpp) works this way, with larger tiles.&lt;/p&gt;</source>
        <translation>&lt;p&gt;第 11 步保存了完整的 {num_tokens} × {num_tokens} 权重矩阵。FlashAttention 从不这样做：它按 {query_tile} 个查询 × {key_tile} 个键的分块逐块计算，每个查询只保留一个运行最大值 &lt;b&gt;m&lt;/b&gt;、exp(ω̃ − m) 的运行和 &lt;b&gt;ℓ&lt;/b&gt;，以及一个未归一化的输出 &lt;b&gt;o&lt;/b&gt;。&lt;/p&gt;&lt;p&gt;当某个分块使最大值变大时，之前累加的量是按旧的最大值算的：ℓ 和 o 要乘以 &lt;b&gt;s = exp(m&lt;sub&gt;old&lt;/sub&gt; − m&lt;sub&gt;new&lt;/sub&gt;)&lt;/b&gt;。一个查询分块处理完最后一个键分块后，z = o / ℓ，它等于第 11 步的上下文向量。在 {num_tiles} 个分块中，有 {tiles_skipped} 个位于对角线上方而被跳过：其中每个键都在每个查询之后。&lt;/p&gt;&lt;p&gt;当 T = {big_t} 个词元时，完整矩阵每个头需要 T² × 4 = {scores_bytes} 字节；分块只需每个查询的 m 和 ℓ 以及一个分块，即 (2T + {query_tile} × {key_tile}) × 4 = {tiled_bytes} 字节，约少 {memory_ratio} 倍。本引擎自己的快速路径（model/fast_attention.cpp）就是这样工作的，只是分块更大。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Mask (1 = attend, 0 = blocked)</source>
        <translation>掩码（1 = 关注，0 = 屏蔽）</translation>
    </message>
    <message>
        <source>Weights with this mask</source>
        <translation>此掩码下的权重</translation>
    </message>
    <message>
        <source>Context vectors with this mask</source>
        <translation>此掩码下的上下文向量</translation>
    </message>
    <message>
        <source>Tiles: now (1), done (0.5), skipped (masked)</source>
        <translation>分块：当前（1）、已完成（0.5）、跳过（屏蔽）</translation>
    </message>
    <message>
        <source>This tile&apos;s scores ω̃</source>
        <translation>本分块的分数 ω̃</translation>
    </message>
    <message>
        <source>Running maximum m</source>
        <translation>运行最大值 m</translation>
    </message>
    <message>
        <source>Rescaling s = exp(m_old − m)</source>
        <translation>重缩放 s = exp(m_old − m)</translation>
    </message>
    <message>
        <source>Running sum ℓ</source>
        <translation>运行和 ℓ</translation>
    </message>
    <message>
        <source>Unnormalised output o</source>
        <translation>未归一化输出 o</translation>
    </message>
    <message>
        <source>Context vectors z = o / ℓ</source>
        <translation>上下文向量 z = o / ℓ</translation>
    </message>
    <message>
        <source>Weights not blocked</source>
        <translation>未被屏蔽的权重</translation>
    </message>
    <message>
        <source>Tiles computed</source>
        <translation>已计算的分块</translation>
    </message>
    <message>
        <source>Tiles skipped</source>
        <translation>跳过的分块</translation>
    </message>
    <message>
        <source>Full matrix, long sequence (bytes)</source>
        <translation>完整矩阵，长序列（字节）</translation>
    </message>
    <message>
        <source>Tiles, long sequence (bytes)</source>
        <translation>分块，长序列（字节）</translation>
    </message>
    <message>
        <source>padding</source>
        <translation>填充</translation>
    </message>
    <message>
        <source>sliding window w = {window}</source>
        <translation>滑动窗口 w = {window}</translation>
    </message>
    <message>
        <source>bidirectional</source>
        <translation>双向</translation>
    </message>
    <message>
        <source>Mask %1 of %2: %3</source>
        <translation>掩码 %1 / %2：%3</translation>
    </message>
    <message>
        <source>Tile %1 of %2: %3</source>
        <translation>分块 %1 / %2：%3</translation>
    </message>
    <message>
        <source>◀ Previous mask</source>
        <translation>◀ 上一个掩码</translation>
    </message>
    <message>
        <source>Next mask ▶</source>
        <translation>下一个掩码 ▶</translation>
    </message>
    <message>
        <source>◀ Previous tile</source>
        <translation>◀ 上一个分块</translation>
    </message>
    <message>
        <source>Next tile ▶</source>
        <translation>下一个分块 ▶</translation>
    </message>
    <message>
        <source>Layer %1 · head %2</source>
        <translation>第 %1 层 · 头 %2</translation>
    </message>
    <message>
        <source>Grouped-query and multi-query attention</source>
        <translation>分组查询注意力与多查询注意力</translation>
    </message>
    <message>
        <source>&lt;p&gt;The KV cache keeps every head&apos;s keys and values. In &lt;b&gt;grouped-query attention&lt;/b&gt; (GQA: LLaMA 2 and 3, Mistral) several query heads share one key/value head; with a single K/V head it is &lt;b&gt;multi-query attention&lt;/b&gt; (MQA). Here {num_heads} query heads of head_dim {head_dim} (d_out = {gqa_d_out}) share 1, {gqa_kv_heads}, then {num_heads} K/V heads: W_key and W_value have K/V heads × head_dim columns, and &lt;code&gt;repeat_interleave&lt;/code&gt; hands each K/V head to its group of query heads, {gqa_group} of them with {gqa_kv_heads} K/V heads.&lt;/p&gt;&lt;p&gt;The cache a decoder keeps, 2 × {num_tokens} tokens × K/V heads × {head_dim} × 4 bytes, shrinks by the group factor: {mha_cache_bytes} bytes with {num_heads} K/V heads, {gqa_cache_bytes} with {gqa_kv_heads}, {mqa_cache_bytes} with 1. The query heads still attend in their own ways, with fewer distinct keys.&lt;/p&gt;&lt;p&gt;With as many K/V heads as query heads nothing is shared: it is the seed&apos;s &lt;code&gt;MultiHeadAttention&lt;/code&gt; with the same seed, number for number (the largest difference is among the page&apos;s numbers).&lt;/p&gt;</source>
        <translation>&lt;p&gt;KV 缓存保存每个头的键和值。在&lt;b&gt;分组查询注意力&lt;/b&gt;（GQA：LLaMA 2 和 3、Mistral）中，若干个查询头共享一个键/值头；只有一个 K/V 头时就是&lt;b&gt;多查询注意力&lt;/b&gt;（MQA）。这里 {num_heads} 个 head_dim 为 {head_dim} 的查询头（d_out = {gqa_d_out}）依次共享 1 个、{gqa_kv_heads} 个和 {num_heads} 个 K/V 头：W_key 和 W_value 有 K/V 头数 × head_dim 列，&lt;code&gt;repeat_interleave&lt;/code&gt; 把每个 K/V 头交给它那一组查询头；有 {gqa_kv_heads} 个 K/V 头时，每组 {gqa_group} 个。&lt;/p&gt;&lt;p&gt;解码器保存的缓存为 2 × {num_tokens} 个词元 × K/V 头数 × {head_dim} × 4 字节，按分组倍数缩小：{num_heads} 个 K/V 头时为 {mha_cache_bytes} 字节，{gqa_kv_heads} 个时为 {gqa_cache_bytes} 字节，1 个时为 {mqa_cache_bytes} 字节。各查询头仍以各自的方式计算注意力，只是不同的键变少了。&lt;/p&gt;&lt;p&gt;K/V 头与查询头一样多时，没有任何共享：它就是使用同一 seed 的 &lt;code&gt;MultiHeadAttention&lt;/code&gt;，每个数都相同（最大差值见本页的数值）。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Rotary position embeddings (RoPE)</source>
        <translation>旋转位置编码（RoPE）</translation>
    </message>
    <message>
        <source>&lt;p&gt;Attention has no notion of order: a score compares a query with a key wherever the two tokens stand. Reverse the sentence to “{permuted_sentence}” and the scores are the same numbers, reversed in rows and columns (ωᴾ): the difference is 0.&lt;/p&gt;&lt;p&gt;&lt;b&gt;RoPE&lt;/b&gt; (LLaMA, Mistral, Qwen) rotates every query and key before the scores. Coordinate i pairs with coordinate i + head_dim/2, and the pair of the token at position p turns by the angle p · θ&lt;sub&gt;i&lt;/sub&gt;, θ&lt;sub&gt;i&lt;/sub&gt; = {rope_base}&lt;sup&gt;−2i/head_dim&lt;/sup&gt;. Here head_dim = {rope_dim}, and the first pair turns by p radians: &lt;i&gt;{query_token}&lt;/i&gt; at position {query_position} turns by {query_angle} rad. The scores change: their difference from those without RoPE is not 0.&lt;/p&gt;&lt;p&gt;Rotating both vectors keeps their lengths, and their dot product depends only on the angle between them, so the score of query i and key j depends on j − i. Shift every position by {rope_shift}: every angle changes, and the difference from the unshifted scores is 0 up to float rounding.&lt;/p&gt;</source>
        <translation>&lt;p&gt;注意力本身没有顺序的概念：无论两个词元处在什么位置，分数都只是把一个查询和一个键进行比较。把句子倒过来变成“{permuted_sentence}”，分数还是同样的数，只是行和列的顺序颠倒了（ωᴾ）：差值为 0。&lt;/p&gt;&lt;p&gt;&lt;b&gt;RoPE&lt;/b&gt;（LLaMA、Mistral、Qwen）在计算分数之前旋转每个查询和键。第 i 个坐标与第 i + head_dim/2 个坐标配成一对，位置 p 上的词元的这一对坐标旋转角度 p · θ&lt;sub&gt;i&lt;/sub&gt;，θ&lt;sub&gt;i&lt;/sub&gt; = {rope_base}&lt;sup&gt;−2i/head_dim&lt;/sup&gt;。这里 head_dim = {rope_dim}，第一对坐标旋转 p 弧度：位置 {query_position} 上的 &lt;i&gt;{query_token}&lt;/i&gt; 旋转 {query_angle} rad。分数随之改变：它们与不用 RoPE 时的分数之差不为 0。&lt;/p&gt;&lt;p&gt;同时旋转两个向量不会改变它们的长度，而它们的点积只取决于两者之间的夹角，因此查询 i 与键 j 的分数取决于 j − i。把每个位置都平移 {rope_shift}：每个角度都变了，但与未平移时的分数之差在浮点舍入误差内为 0。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Query head → K/V head</source>
        <translation>查询头 → K/V 头</translation>
    </message>
    <message>
        <source>Cached keys, K/V heads side by side</source>
        <translation>缓存的键，各 K/V 头并排</translation>
    </message>
    <message>
        <source>Cached values, K/V heads side by side</source>
        <translation>缓存的值，各 K/V 头并排</translation>
    </message>
    <message>
        <source>Angles p · θᵢ (radians)</source>
        <translation>角度 p · θᵢ（弧度）</translation>
    </message>
    <message>
        <source>Queries before rotation</source>
        <translation>旋转前的查询</translation>
    </message>
    <message>
        <source>Rotated queries qʳ</source>
        <translation>旋转后的查询 qʳ</translation>
    </message>
    <message>
        <source>Rotated keys kʳ</source>
        <translation>旋转后的键 kʳ</translation>
    </message>
    <message>
        <source>Scores ωʳ = qʳ · kʳ</source>
        <translation>分数 ωʳ = qʳ · kʳ</translation>
    </message>
    <message>
        <source>|Scores − the comparison|</source>
        <translation>|分数 − 对照|</translation>
    </message>
    <message>
        <source>K/V heads</source>
        <translation>K/V 头数</translation>
    </message>
    <message>
        <source>Query heads per K/V head</source>
        <translation>每个 K/V 头对应的查询头数</translation>
    </message>
    <message>
        <source>Largest difference from MultiHeadAttention</source>
        <translation>与 MultiHeadAttention 的最大差值</translation>
    </message>
    <message>
        <source>{num_heads} K/V heads (MHA)</source>
        <translation>{num_heads} 个 K/V 头（MHA）</translation>
    </message>
    <message>
        <source>{gqa_kv_heads} K/V heads (GQA)</source>
        <translation>{gqa_kv_heads} 个 K/V 头（GQA）</translation>
    </message>
    <message>
        <source>1 K/V head (MQA)</source>
        <translation>1 个 K/V 头（MQA）</translation>
    </message>
    <message>
        <source>reversed, no RoPE</source>
        <translation>倒序，无 RoPE</translation>
    </message>
    <message>
        <source>RoPE, positions 0–{last_position}</source>
        <translation>RoPE，位置 0–{last_position}</translation>
    </message>
    <message>
        <source>RoPE, positions + {rope_shift}</source>
        <translation>RoPE，位置 + {rope_shift}</translation>
    </message>
    <message>
        <source>%1 of %2: %3</source>
        <translation>%1 / %2：%3</translation>
    </message>
    <message>
        <source>◀ Fewer K/V heads</source>
        <translation>◀ 更少 K/V 头</translation>
    </message>
    <message>
        <source>More K/V heads ▶</source>
        <translation>更多 K/V 头 ▶</translation>
    </message>
    <message>
        <source>Query head %1 · K/V head %2</source>
        <translation>查询头 %1 · K/V 头 %2</translation>
    </message>
    <message>
        <source>Layer {layer}</source>
        <translation>第 {layer} 层</translation>
    </message>
    <message>
        <source>&lt;p&gt;Each row is one token of your text as a query; its cells are the attention weights α it gives to itself and to the tokens before it (the causal mask hides the later ones): softmax(q·k / √{head_dim}) with this model&apos;s own queries and keys, head_dim = {head_dim}, √{head_dim} = {sqrt_head_dim}. Every row sums to 1.&lt;/p&gt;&lt;p&gt;Point at a cell to see its arithmetic: the dot product q·k, the division by {sqrt_head_dim} and the softmax over the row.&lt;/p&gt;</source>
        <translation>&lt;p&gt;每一行是你的文本中作为查询的一个词元；行中的单元格是它分给自身和之前各词元的注意力权重 α（因果掩码遮住后面的词元）：softmax(q·k / √{head_dim})，用的是这个模型自己的查询和键，head_dim = {head_dim}，√{head_dim} = {sqrt_head_dim}。每一行之和为 1。&lt;/p&gt;&lt;p&gt;把鼠标指向一个单元格即可看到它的计算过程：点积 q·k、除以 {sqrt_head_dim}，以及对整行的 softmax。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Attention weights as the model that wrote the file computed them: row = query token, column = key token, {num_heads} heads over {num_tokens} tokens. The file holds only the weights, not the queries and keys, so a cell shows its value but not its arithmetic.&lt;/p&gt;</source>
        <translation>&lt;p&gt;注意力权重由写出该文件的模型计算：行 = 查询词元，列 = 键词元，{num_heads} 个头，{num_tokens} 个词元。文件只保存权重，没有查询和键，所以单元格只显示数值，不显示计算过程。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;Each row is one token as a query, its cells the attention weights α it gives to itself and to the tokens before it: softmax(q·k / √{head_dim}). The rows of generated tokens come from the kv_cache, one new query against the cached keys. Every row sums to 1.&lt;/p&gt;&lt;p&gt;The arithmetic of every cell comes back on hover once generation stops and one full pass has run.&lt;/p&gt;</source>
        <translation>&lt;p&gt;每一行是作为查询的一个词元，行中的单元格是它分给自身和之前各词元的注意力权重 α：softmax(q·k / √{head_dim})。生成的词元所在的行来自 kv_cache：一个新查询对照缓存中的键。每一行之和为 1。&lt;/p&gt;&lt;p&gt;生成停止并完成一次完整计算后，鼠标悬停即可再次看到每个单元格的计算过程。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Case %1 of %2: %3</source>
        <translation>情形 %1 / %2：%3</translation>
    </message>
    <message>
        <source>◀ Previous case</source>
        <translation>◀ 上一情形</translation>
    </message>
    <message>
        <source>Next case ▶</source>
        <translation>下一情形 ▶</translation>
    </message>
    <message>
        <source>&lt;p&gt;Each row is one token of your text as a query; its cells are the attention weights α it gives to every token, before and after it (an encoder has no causal mask): softmax(q·k / √{head_dim}) with this model&apos;s own queries and keys, head_dim = {head_dim}, √{head_dim} = {sqrt_head_dim}. Every row sums to 1.&lt;/p&gt;&lt;p&gt;Point at a cell to see its arithmetic: the dot product q·k, the division by {sqrt_head_dim} and the softmax over the row; the neuron view beside it shows the vectors q and k behind it.&lt;/p&gt;</source>
        <translation>&lt;p&gt;每一行是你的文本中作为查询的一个词元；行中的单元格是它分给每个词元（无论在它之前还是之后）的注意力权重 α（编码器没有因果掩码）：softmax(q·k / √{head_dim})，用的是这个模型自己的查询和键，head_dim = {head_dim}，√{head_dim} = {sqrt_head_dim}。每一行之和为 1。&lt;/p&gt;&lt;p&gt;把鼠标指向一个单元格即可看到它的计算过程：点积 q·k、除以 {sqrt_head_dim}，以及对整行的 softmax；旁边的神经元视图显示其背后的向量 q 和 k。&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>ThreadsMenu</name>
    <message>
        <source>&amp;Threads</source>
        <translation>线程(&amp;T)</translation>
    </message>
    <message>
        <source>Every core (%1)</source>
        <translation>全部核心（%1）</translation>
    </message>
</context>
<context>
    <name>TrainGuide</name>
    <message>
        <source>L%1 H%2</source>
        <translation>L%1 H%2</translation>
    </message>
    <message>
        <source>The weights start random and small, so every query spreads its attention almost evenly over the tokens it can see: in the last row (%1 tokens) no head gives any token more than %2, against %3 for a perfectly even spread. The heatmaps are pale triangles.</source>
        <translation>权重一开始是随机的小数，所以每个查询几乎把注意力平均分给它能看到的词元：在最后一行（%1 个词元）中，没有哪个头给任何词元超过 %2 的权重，而完全均匀时每个是 %3。热图是一片浅色的三角形。</translation>
    </message>
    <message>
        <source>Step 0: uniform attention</source>
        <translation>第 0 步：均匀的注意力</translation>
    </message>
    <message>
        <source>At step 0</source>
        <translation>在第 0 步</translation>
    </message>
    <message>
        <source>A previous-token head puts each token&apos;s attention on the token just before it: its heatmap becomes the diagonal right under the main one. Best in layer 1 now: %1, previous-token score %2.</source>
        <translation>前一词元头把每个词元的注意力放在紧挨着它前面的词元上：它的热图变成主对角线正下方的那条对角线。第 1 层目前最好的是 %1，前一词元分数 %2。</translation>
    </message>
    <message>
        <source>It passed %1 at step %2 (score %3).</source>
        <translation>它在第 %2 步超过了 %1（分数 %3）。</translation>
    </message>
    <message>
        <source>Watch for a layer-1 score climbing toward 1 (none above %1 yet).</source>
        <translation>留意第 1 层有没有分数逐渐升向 1（目前还没有超过 %1 的）。</translation>
    </message>
    <message>
        <source>Layer 1: a previous-token head</source>
        <translation>第 1 层：前一词元头</translation>
    </message>
    <message>
        <source>One layer: no induction head</source>
        <translation>只有一层：没有归纳头</translation>
    </message>
    <message>
        <source>An induction head reads what a previous-token head in an earlier layer wrote, so a one-layer attention-only model cannot form one: its best induction score at step %1 is %2 (%3), and the loss never makes the sudden drop. Choose a two-layer preset to see one form.</source>
        <translation>归纳头要读取更早一层中前一词元头写下的信息，所以只有一层的纯注意力模型无法形成归纳头：它在第 %1 步的最佳归纳分数是 %2（%3），损失也不会突然下降。选择两层的模型就能看到归纳头形成。</translation>
    </message>
    <message>
        <source>An induction head attends from each token of the repeat to the token after that token&apos;s earlier occurrence, a stripe %1 places left of the diagonal in the second half, and copies it: the loss drops suddenly when it appears. Best in the later layers now: %2, induction score %3.</source>
        <translation>归纳头让重复部分的每个词元关注它上一次出现时紧随其后的那个词元（后半部分中对角线左侧 %1 格处的一条斜线），并把它复制过来：它一出现，损失就突然下降。后面各层目前最好的是 %2，归纳分数 %3。</translation>
    </message>
    <message>
        <source>It passed %1 at step %2.</source>
        <translation>它在第 %2 步超过了 %1。</translation>
    </message>
    <message>
        <source>Mean loss of the %1 steps up to step %2: %3; up to step %4: %5.</source>
        <translation>到第 %2 步为止的 %1 步平均损失：%3；到第 %4 步为止：%5。</translation>
    </message>
    <message>
        <source>None above %1 yet: keep an eye on the loss curve.</source>
        <translation>目前还没有超过 %1 的：请留意损失曲线。</translation>
    </message>
    <message>
        <source>Layer 2: the induction head and the loss drop</source>
        <translation>第 2 层：归纳头与损失的下降</translation>
    </message>
    <message>
        <source>Text</source>
        <translation>文本</translation>
    </message>
    <message>
        <source>The scores are measured on probes of random tokens repeated once, also here. Every %1 steps the model writes a sample after the first tokens of %2 (below): first common letters and spaces, then words.</source>
        <translation>这里的分数同样是在“随机词元重复一次”的探针序列上测量的。每 %1 步，模型会接着 %2 开头的几个词元写一段样例（见下方）：先是常见的字母和空格，然后是单词。</translation>
    </message>
    <message>
        <source>Preparing the model</source>
        <translation>正在准备模型</translation>
    </message>
    <message>
        <source>The window builds the model with the chosen settings.</source>
        <translation>窗口正在按所选设置构建模型。</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <comment>two sentences in a row</comment>
        <translation>%1%2</translation>
    </message>
</context>
<context>
    <name>TrainSession</name>
    <message>
        <source>There is no model to save yet.</source>
        <translation>还没有可以保存的模型。</translation>
    </message>
</context>
<context>
    <name>TrainWindow</name>
    <message>
        <source>Could not save %1: %2</source>
        <translation>无法保存 %1：%2</translation>
    </message>
    <message>
        <source>Saved to %1: the model window opens it (File ▸ Open model folder…).</source>
        <translation>已保存到 %1：模型窗口可以打开它（文件 ▸ 打开模型文件夹…）。</translation>
    </message>
    <message>
        <source>Attention Visualizer — train a model</source>
        <translation>注意力可视化 — 训练模型</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Save as GPT-2 folder…</source>
        <translation>另存为 GPT-2 文件夹(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Close</source>
        <translation>关闭(&amp;C)</translation>
    </message>
    <message>
        <source>T&amp;raining</source>
        <translation>训练(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Start or pause</source>
        <translation>开始或暂停(&amp;S)</translation>
    </message>
    <message>
        <source>One training s&amp;tep (looking back: the next snapshot)</source>
        <translation>训练一步(&amp;T)（回看时：下一个快照）</translation>
    </message>
    <message>
        <source>&amp;Reset to step 0 with the chosen settings</source>
        <translation>按所选设置重置到第 0 步(&amp;R)</translation>
    </message>
    <message>
        <source>T&amp;imeline</source>
        <translation>时间轴(&amp;I)</translation>
    </message>
    <message>
        <source>&amp;Previous snapshot</source>
        <translation>上一个快照(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;First snapshot (step 0)</source>
        <translation>第一个快照（第 0 步）(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Newest snapshot</source>
        <translation>最新的快照(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Task:</source>
        <translation>任务(&amp;T)：</translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation>模型(&amp;M)：</translation>
    </message>
    <message>
        <source>S&amp;eed:</source>
        <translation>随机种子(&amp;E)：</translation>
    </message>
    <message>
        <source>&amp;Learning rate:</source>
        <translation>学习率(&amp;L)：</translation>
    </message>
    <message>
        <source>the model&apos;s own</source>
        <translation>模型自己的</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>单步</translation>
    </message>
    <message>
        <source>Train exactly one step (→ or PageDown)</source>
        <translation>只训练一步（→ 或 PageDown）</translation>
    </message>
    <message>
        <source>Reset</source>
        <translation>重置</translation>
    </message>
    <message>
        <source>Back to step 0 with the chosen settings (Ctrl+R)</source>
        <translation>按所选设置回到第 0 步（Ctrl+R）</translation>
    </message>
    <message>
        <source>Save as GPT-2 folder…</source>
        <translation>另存为 GPT-2 文件夹…</translation>
    </message>
    <message>
        <source>Every head on the probe (rows: layers, columns: heads); click one to see it large and point at a cell for its q·k arithmetic</source>
        <translation>探针序列上的每个头（行：层，列：头）；点击一个头可放大查看，指向某个单元格可看到它的 q·k 计算</translation>
    </message>
    <message>
        <source>What the model writes</source>
        <translation>模型写出的文字</translation>
    </message>
    <message>
        <source>Timeline:</source>
        <translation>时间轴：</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>cross-entropy</source>
        <translation>交叉熵</translation>
    </message>
    <message>
        <source>Previous-token score of each head</source>
        <translation>每个头的前一词元分数</translation>
    </message>
    <message>
        <source>score</source>
        <translation>分数</translation>
    </message>
    <message>
        <source>Induction score of each head</source>
        <translation>每个头的归纳分数</translation>
    </message>
    <message>
        <source>Induction: copy a repeated random sequence</source>
        <translation>归纳：复制一段重复的随机序列</translation>
    </message>
    <message>
        <source>Text: %1 (Edith Wharton)</source>
        <translation>文本：%1（伊迪丝·华顿）</translation>
    </message>
    <message>
        <source>Text: a file…</source>
        <translation>文本：选择文件…</translation>
    </message>
    <message>
        <source>Text: %1</source>
        <translation>文本：%1</translation>
    </message>
    <message>
        <source>A text to train on</source>
        <translation>用于训练的文本</translation>
    </message>
    <message>
        <source>Text files (*.txt);;All (*)</source>
        <translation>文本文件 (*.txt);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Reset applies the new settings (the run so far is kept until then).</source>
        <translation>重置时才会应用新设置（在那之前保留目前的训练）。</translation>
    </message>
    <message>
        <source>Save the model as a GPT-2 folder</source>
        <translation>将模型另存为 GPT-2 文件夹</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>L%1 H%2</source>
        <translation>L%1 H%2</translation>
    </message>
    <message>
        <source>step %1 (snapshot %2 of %3)</source>
        <translation>第 %1 步（快照 %2 / %3）</translation>
    </message>
    <message>
        <source>After %1 steps, from “%2”:
%2%3</source>
        <translation>训练 %1 步后，从“%2”开始：
%2%3</translation>
    </message>
    <message>
        <source>A sample follows every %1 steps.</source>
        <translation>每 %1 步生成一段样例。</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>Pause training (Space)</source>
        <translation>暂停训练（空格）</translation>
    </message>
    <message>
        <source>Start training (Space)</source>
        <translation>开始训练（空格）</translation>
    </message>
    <message>
        <source>Building the model…</source>
        <translation>正在构建模型…</translation>
    </message>
    <message>
        <source>%1 layers × %2 heads, d_model %3 · step %4</source>
        <translation>%1 层 × %2 个头，d_model %3 · 第 %4 步</translation>
    </message>
    <message>
        <source> · loss %1</source>
        <translation> · 损失 %1</translation>
    </message>
    <message>
        <source> · %1 steps/s</source>
        <translation> · 每秒 %1 步</translation>
    </message>
</context>
<context>
    <name>views::ExploreHeadsGrid</name>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>Simplified: long sequences are shown as block averages of at most %1 × %1 cells.</source>
        <translation>已简化：长序列显示为最多 %1 × %1 个单元格的分块平均值。</translation>
    </message>
    <message>
        <source>Click a head to enlarge it; point at a row to follow that query in every head.</source>
        <translation>点击一个头将其放大；指向某一行可在每个头中跟踪该查询。</translation>
    </message>
    <message>
        <source>Head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>attn_weights, head %1</source>
        <translation>attn_weights，头 %1</translation>
    </message>
    <message>
        <source>queries</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>keys</source>
        <translation>键</translation>
    </message>
    <message>
        <source>Colour &amp;range:</source>
        <translation>颜色范围(&amp;R)：</translation>
    </message>
    <message>
        <source>Shared by all heads</source>
        <translation>所有头共用</translation>
    </message>
    <message>
        <source>Each head its own</source>
        <translation>每个头各自</translation>
    </message>
    <message>
        <source>Each row its own</source>
        <translation>每行各自</translation>
    </message>
    <message>
        <source>Shared: the heads compare at a glance, but a row holding 1.0 washes out the others. Each head or each row: its own min → max, so small differences show.</source>
        <translation>共用：各头一眼可比，但含 1.0 的一行会让其他行褪色。每个头或每行各自：用自己的最小值 → 最大值，细小差别也能看出。</translation>
    </message>
    <message>
        <source>&amp;Sentence:</source>
        <translation>句子(&amp;S)：</translation>
    </message>
    <message>
        <source>head %1 · K/V %2</source>
        <translation>头 %1 · K/V %2</translation>
    </message>
</context>
<context>
    <name>views::ExploreKvStepper</name>
    <message>
        <source>◀ Previous token</source>
        <translation>◀ 上一个词元</translation>
    </message>
    <message>
        <source>Next token ▶</source>
        <translation>下一个词元 ▶</translation>
    </message>
    <message>
        <source>Head</source>
        <translation>头</translation>
    </message>
    <message>
        <source>token %1 of %2</source>
        <translation>第 %1 个词元，共 %2 个</translation>
    </message>
    <message>
        <source>Step 1 feeds “%1”: the cache is empty, so its key and value become the cache&apos;s first row, and its query attends to itself alone. From the next token on, the cached keys and values are reused, not recomputed.</source>
        <translation>第 1 步输入“%1”：缓存为空，因此它的键和值成为缓存的第一行，它的查询只关注它自己。从下一个词元起，缓存中的键和值被重复使用，而不是重新计算。</translation>
    </message>
    <message>
        <source>K cache, head %1 (%2 × %3)</source>
        <translation>K 缓存，头 %1（%2 × %3）</translation>
    </message>
    <message>
        <source>V cache, head %1</source>
        <translation>V 缓存，头 %1</translation>
    </message>
    <message>
        <source>new query row</source>
        <translation>新的查询行</translation>
    </message>
    <message>
        <source>its attn_weights over the cache</source>
        <translation>它在缓存上的 attn_weights</translation>
    </message>
    <message>
        <source>with cache</source>
        <translation>使用缓存</translation>
    </message>
    <message>
        <source>full recomputation</source>
        <translation>完全重新计算</translation>
    </message>
    <message>
        <source>output row of “%1”: max difference %2</source>
        <translation>“%1”的输出行：最大差值 %2</translation>
    </message>
    <message>
        <source>Step %1 feeds “%2”: its key and value are computed once and appended to the cache (outlined row); the keys and values of the %3 are reused, not recomputed. Only the new query row attends over the cache, so no causal mask is needed: every cached token is in the past.</source>
        <translation>第 %1 步输入“%2”：它的键和值只计算一次并追加到缓存中（带框的行）；%3的键和值被复用，不再重新计算。只有新的查询行对缓存做注意力，因此不需要因果掩码：缓存中的每个词元都在过去。</translation>
    </message>
    <message numerus="yes">
        <source>%n earlier token(s)</source>
        <translation>
            <numerusform>之前 %n 个词元</numerusform>
        </translation>
    </message>
    <message>
        <source>Multiplications this step: %1 with the cache, %2 without (recomputing %3). So far: %4 with, %5 without (%6% saved). Cache: 2 × %7 × %8 × %9 head_dim × 4 bytes = %10 bytes per layer.</source>
        <translation>本步乘法次数：使用缓存 %1 次，不使用 %2 次（重新计算%3）。累计：使用 %4 次，不使用 %5 次（节省 %6%）。缓存：2 × %7 × %8 × %9 head_dim × 4 字节 = 每层 %10 字节。</translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n 个词元</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n head(s)</source>
        <translation>
            <numerusform>%n 个头</numerusform>
        </translation>
    </message>
    <message>
        <source>K cache, K/V head %1 (%2 × %3)</source>
        <translation>K 缓存，K/V 头 %1（%2 × %3）</translation>
    </message>
    <message>
        <source>V cache, K/V head %1</source>
        <translation>V 缓存，K/V 头 %1</translation>
    </message>
    <message>
        <source>The %1 query heads share %2 K/V heads: the cache is %3 times smaller than with one K/V head per query head.</source>
        <translation>%1 个查询头共享 %2 个 K/V 头：缓存比每个查询头各配一个 K/V 头时小 %3 倍。</translation>
    </message>
</context>
<context>
    <name>views::ExploreLinesView</name>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>Simplified: only the first %1 tokens of each side are drawn.</source>
        <translation>已简化：每一侧只绘制前 %1 个词元。</translation>
    </message>
    <message>
        <source>Line opacity = attention weight. Point at a token to see only its lines.</source>
        <translation>连线不透明度 = 注意力权重。指向一个词元即可只查看它的连线。</translation>
    </message>
    <message>
        <source>queries</source>
        <translation>查询</translation>
    </message>
    <message>
        <source>keys</source>
        <translation>键</translation>
    </message>
</context>
<context>
    <name>views::ExploreParameterPanel</name>
    <message>
        <source>Module</source>
        <translation>模块</translation>
    </message>
    <message>
        <source>d_in (embedding width)</source>
        <translation>d_in（嵌入宽度）</translation>
    </message>
    <message>
        <source>d_out</source>
        <translation>d_out</translation>
    </message>
    <message>
        <source>num_heads</source>
        <translation>num_heads</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>Seed</translation>
    </message>
    <message>
        <source>Dropout p</source>
        <translation>Dropout p</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <source>Causal mask</source>
        <translation>因果掩码</translation>
    </message>
    <message>
        <source>qkv_bias</source>
        <translation>qkv_bias</translation>
    </message>
    <message>
        <source>Mask convention</source>
        <translation>掩码约定</translation>
    </message>
    <message>
        <source>Fill value</source>
        <translation>填充值</translation>
    </message>
    <message>
        <source>Scaling</source>
        <translation>缩放</translation>
    </message>
    <message>
        <source>training (dropout on)</source>
        <translation>训练（启用 dropout）</translation>
    </message>
    <message>
        <source>future tokens hidden</source>
        <translation>隐藏未来词元</translation>
    </message>
    <message>
        <source>divide scores by √head_dim</source>
        <translation>将分数除以 √head_dim</translation>
    </message>
    <message>
        <source>fill where mask == 0 (seed 000)</source>
        <translation>在 mask == 0 处填充（seed 000）</translation>
    </message>
    <message>
        <source>fill where mask == 1 (seed 004)</source>
        <translation>在 mask == 1 处填充（seed 004）</translation>
    </message>
    <message>
        <source>The mask tensor is the subsequent mask: 1 where a token may look, 0 for the future. Filling where mask == 1 hides the past instead, and the last token sees nothing.</source>
        <translation>掩码张量是后续掩码（subsequent mask）：词元可以查看的位置为 1，未来位置为 0。在 mask == 1 处填充反而会隐藏过去，最后一个词元将什么也看不到。</translation>
    </message>
    <message>
        <source>The score put in masked cells before softmax. A fully masked row gives NaN with -inf and equal weights with -1e9 or -1e4.</source>
        <translation>在 softmax 之前放入被掩码单元格的分数。完全被掩码的一行在使用 -inf 时得到 NaN，使用 -1e9 或 -1e4 时得到相等的权重。</translation>
    </message>
    <message>
        <source>bias in W_query, W_key, W_value</source>
        <translation>W_query、W_key、W_value 中的偏置</translation>
    </message>
    <message>
        <source>The attention module of the tutorials to run.</source>
        <translation>要运行的教程中的注意力模块。</translation>
    </message>
    <message>
        <source>This module&apos;s output width is d_model = d_in.</source>
        <translation>此模块的输出宽度为 d_model = d_in。</translation>
    </message>
    <message>
        <source>The causal mask is part of this module.</source>
        <translation>因果掩码是此模块的一部分。</translation>
    </message>
    <message>
        <source>This module has no mask: choose self-attention-v2 for an optional causal mask.</source>
        <translation>此模块没有掩码：请选择 self-attention-v2 以使用可选的因果掩码。</translation>
    </message>
    <message>
        <source>dim_k (queries, keys)</source>
        <translation>dim_k（查询、键）</translation>
    </message>
    <message>
        <source>dim_v (values)</source>
        <translation>dim_v（值）</translation>
    </message>
    <message>
        <source>This module&apos;s output width is dim_v.</source>
        <translation>此模块的输出宽度为 dim_v。</translation>
    </message>
    <message>
        <source>Heads on (head_mask)</source>
        <translation>启用的头（head_mask）</translation>
    </message>
    <message>
        <source>head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>GPT-2&apos;s head_mask: a head switched off has its weights multiplied by 0, so it adds nothing to the output.</source>
        <translation>GPT-2 的 head_mask：关闭的头的权重乘以 0，因此它对输出没有任何贡献。</translation>
    </message>
    <message>
        <source>Pruned heads (prune_heads)</source>
        <translation>剪枝的头（prune_heads）</translation>
    </message>
    <message>
        <source>GPT-2&apos;s prune_heads: a pruned head is removed with its parameters; the heads that remain are numbered again from 1.</source>
        <translation>GPT-2 的 prune_heads：被剪枝的头连同其参数一起删除；剩下的头从 1 开始重新编号。</translation>
    </message>
    <message>
        <source>K/V heads (GQA)</source>
        <translation>K/V 头数（GQA）</translation>
    </message>
    <message>
        <source>Mask kind</source>
        <translation>掩码类型</translation>
    </message>
    <message>
        <source>Sentence lengths</source>
        <translation>句子长度</translation>
    </message>
    <message>
        <source>RoPE</source>
        <translation>RoPE</translation>
    </message>
    <message>
        <source>RoPE base</source>
        <translation>RoPE 基数</translation>
    </message>
    <message>
        <source>Position offset</source>
        <translation>位置偏移</translation>
    </message>
    <message>
        <source>causal</source>
        <translation>因果</translation>
    </message>
    <message>
        <source>bidirectional</source>
        <translation>双向</translation>
    </message>
    <message>
        <source>sliding window</source>
        <translation>滑动窗口</translation>
    </message>
    <message>
        <source>width </source>
        <translation>宽度 </translation>
    </message>
    <message>
        <source>e.g. 6, 4: one per sentence</source>
        <translation>例如 6, 4：每个句子一个</translation>
    </message>
    <message>
        <source>rotate queries and keys</source>
        <translation>旋转查询和键</translation>
    </message>
    <message>
        <source>Only multi-head-attention shares K/V heads and has window and padding masks and RoPE (the chapters after the tutorial).</source>
        <translation>只有 multi-head-attention 支持共享 K/V 头、窗口掩码、填充掩码和 RoPE（教程之后的章节）。</translation>
    </message>
    <message>
        <source>Query heads share K/V heads in groups (grouped-query attention): fewer K/V heads, a smaller KV cache. 1 is multi-query attention.</source>
        <translation>查询头按组共享 K/V 头（分组查询注意力）：K/V 头更少，KV 缓存更小。1 即多查询注意力。</translation>
    </message>
    <message>
        <source>causal: each token sees itself and the past. bidirectional: every token sees every token. sliding window: only the last “width” tokens.</source>
        <translation>因果：每个词元看到自己和过去的词元。双向：每个词元看到所有词元。滑动窗口：只看最近的“宽度”个词元。</translation>
    </message>
    <message>
        <source>A padded batch: one copy of the tokens per sentence, keys past a sentence&apos;s length are padding and get weight 0. Empty: one sentence, no padding.</source>
        <translation>填充批次：每个句子一份词元副本，超出句子长度的键是填充，权重为 0。留空：一个句子，无填充。</translation>
    </message>
    <message>
        <source>Choose the sliding window mask to set its width.</source>
        <translation>选择滑动窗口掩码后才能设置其宽度。</translation>
    </message>
    <message>
        <source>RoPE rotates pairs of coordinates: head_dim = d_out / num_heads = %1 / %2 must be even.</source>
        <translation>RoPE 旋转成对的坐标：head_dim = d_out / num_heads = %1 / %2 必须为偶数。</translation>
    </message>
    <message>
        <source>Rotary position embeddings: each query and key is rotated by its position, so the scores depend on how far apart two tokens are, not where they are.</source>
        <translation>旋转位置编码：每个查询和键按其位置旋转，因此分数取决于两个词元相距多远，而不是它们在哪里。</translation>
    </message>
    <message>
        <source>Turn RoPE on to set this.</source>
        <translation>开启 RoPE 后才能设置此项。</translation>
    </message>
    <message>
        <source>θᵢ = base^(−2i/head_dim); LLaMA uses 10000.</source>
        <translation>θᵢ = base^(−2i/head_dim)；LLaMA 使用 10000。</translation>
    </message>
    <message>
        <source>The first token&apos;s position: moving every position by the same amount changes the queries and keys but not the weights.</source>
        <translation>第一个词元的位置：把所有位置平移相同的量会改变查询和键，但不改变权重。</translation>
    </message>
    <message>
        <source>%1: one per query head</source>
        <translation>%1：每个查询头一个</translation>
    </message>
    <message>
        <source>1: shared by all (MQA)</source>
        <translation>1：所有头共享（MQA）</translation>
    </message>
    <message>
        <source>%1: %2 query heads each</source>
        <translation>%1：每组 %2 个查询头</translation>
    </message>
    <message>
        <source>“%1” is not a whole number: give one length per sentence, e.g. 6, 4.</source>
        <translation>“%1”不是整数：请为每个句子给出一个长度，例如 6, 4。</translation>
    </message>
    <message>
        <source>%1 lengths: give at most %2 sentences.</source>
        <translation>%1 个长度：最多只能给出 %2 个句子。</translation>
    </message>
</context>
<context>
    <name>views::ExploreTilesView</name>
    <message>
        <source>&amp;Head</source>
        <translation>头(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Query tile</source>
        <translation>查询分块(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Key tile</source>
        <translation>键分块(&amp;K)</translation>
    </message>
    <message>
        <source>Queries per tile: rows of the weights computed together.</source>
        <translation>每个分块的查询数：权重矩阵中一起计算的行。</translation>
    </message>
    <message>
        <source>Keys per tile: columns of the weights computed together.</source>
        <translation>每个分块的键数：权重矩阵中一起计算的列。</translation>
    </message>
    <message>
        <source>This module&apos;s projections do not split into one matrix per head: choose multi-head-attention to see its tiles.</source>
        <translation>此模块的投影无法切分成每个头一个矩阵：请选择 multi-head-attention 查看其分块。</translation>
    </message>
    <message>
        <source>The tiles walk one sequence, but cross-attention&apos;s keys come from another: choose a self-attention module.</source>
        <translation>分块沿着一个序列进行，但交叉注意力的键来自另一个序列：请选择一个自注意力模块。</translation>
    </message>
    <message>
        <source>%1 tiles are too many to step through: choose larger tiles (at most %2).</source>
        <translation>%1 个分块太多，无法逐个查看：请选择更大的分块（最多 %2 个）。</translation>
    </message>
    <message>
        <source>Head %1 (K/V head %2)</source>
        <translation>头 %1（K/V 头 %2）</translation>
    </message>
    <message>
        <source>Head %1</source>
        <translation>头 %1</translation>
    </message>
    <message>
        <source>%1 of this run, tiled: %2 tiles of %3 × %4 give the head&apos;s context vectors.</source>
        <translation>本次运行的%1，按分块计算：%2 个 %3 × %4 的分块得出该头的上下文向量。</translation>
    </message>
    <message>
        <source>%1 of this run, tiled with the %2 mask and √head_dim only: this run&apos;s head differs by up to %3 (a sliding window, padding, dropout, another fill or no scaling).</source>
        <translation>本次运行的%1，按分块计算，只考虑%2掩码和 √head_dim：本次运行中该头的结果与之最多相差 %3（因为有滑动窗口、填充、dropout、其他填充值或未缩放）。</translation>
    </message>
    <message>
        <source>causal</source>
        <translation>因果</translation>
    </message>
    <message>
        <source>bidirectional</source>
        <translation>双向</translation>
    </message>
</context>
<context>
    <name>views::ExploreTokenModel</name>
    <message>
        <source>token</source>
        <translation>词元</translation>
    </message>
    <message>
        <source>x%1</source>
        <translation>x%1</translation>
    </message>
</context>
<context>
    <name>views::ExploreWeightEditor</name>
    <message>
        <source>Reset to the seed&apos;s weights</source>
        <translation>将权重重置为 seed 生成的值</translation>
    </message>
    <message>
        <source>Parameters by their PyTorch state_dict names; * = edited</source>
        <translation>参数按其 PyTorch state_dict 名称列出；* = 已编辑</translation>
    </message>
    <message>
        <source>vector of %1</source>
        <translation>长度为 %1 的向量</translation>
    </message>
    <message>
        <source>%1 × %2</source>
        <translation>%1 × %2</translation>
    </message>
</context>
<context>
    <name>views::ExploreWeightSplit</name>
    <message>
        <source>W_query is one (d_out = %1, d_in = %2) matrix. Head h takes its rows h·head_dim … (h+1)·head_dim − 1 (head_dim = %3): the %4 heads are %4 independent projections stored side by side. Their context vectors are concatenated back to width %1 before out_proj mixes them.</source>
        <translation>W_query 是一个 (d_out = %1, d_in = %2) 矩阵。第 h 个头取其第 h·head_dim … (h+1)·head_dim − 1 行（head_dim = %3）：这 %4 个头是并排存储的 %4 个独立投影。它们的上下文向量被重新拼接回宽度 %1，然后由 out_proj 将其混合。</translation>
    </message>
    <message>
        <source>h%1·%2</source>
        <translation>h%1·%2</translation>
    </message>
    <message>
        <source>fused W_query.weight</source>
        <translation>融合的 W_query.weight</translation>
    </message>
    <message>
        <source>head %1 slice</source>
        <translation>头 %1 切片</translation>
    </message>
    <message>
        <source>heads concatenated (T, H·head_dim)</source>
        <translation>拼接后的各个头 (T, H·head_dim)</translation>
    </message>
    <message>
        <source>out_proj.weight</source>
        <translation>out_proj.weight</translation>
    </message>
    <message>
        <source>context_vecs = concat · out_projᵀ + b</source>
        <translation>context_vecs = concat · out_projᵀ + b</translation>
    </message>
    <message>
        <source>W_query is one (dim_k = %1, d_in = %2) matrix. Head h takes its rows h·head_dim … (h+1)·head_dim − 1 (head_dim = %3): the %4 heads are %4 independent projections stored side by side. Their context vectors, concatenated to width %5, are the output: this module has no out_proj.</source>
        <translation>W_query 是一个 (dim_k = %1, d_in = %2) 的矩阵。第 h 个头取其第 h·head_dim … (h+1)·head_dim − 1 行（head_dim = %3）：%4 个头是并排存放的 %4 个独立投影。它们的上下文向量拼接成宽度 %5 后就是输出：此模块没有 out_proj。</translation>
    </message>
    <message>
        <source>context_vecs = concat (no out_proj)</source>
        <translation>context_vecs = 拼接（没有 out_proj）</translation>
    </message>
</context>
<context>
    <name>views::HeatmapWidget</name>
    <message>
        <source>values hidden: %1×%2 too small to label</source>
        <translation>数值已隐藏：%1×%2 太小，无法标注</translation>
    </message>
    <message>
        <source>values hidden</source>
        <translation>数值已隐藏</translation>
    </message>
    <message>
        <source>Attention Visualizer heatmap</source>
        <translation>Attention Visualizer 热力图</translation>
    </message>
    <message>
        <source>the SVG painter could not start</source>
        <translation>SVG 绘图器无法启动</translation>
    </message>
    <message>
        <source>the PDF painter could not start</source>
        <translation>PDF 绘制器无法启动</translation>
    </message>
    <message>
        <source>fixed %1 – %2</source>
        <translation>固定 %1 – %2</translation>
    </message>
    <message>
        <source>this matrix: %1 – %2</source>
        <translation>本矩阵：%1 – %2</translation>
    </message>
    <message>
        <source>each row: −max|x| – max|x|</source>
        <translation>每行：−max|x| – max|x|</translation>
    </message>
    <message>
        <source>each row: its min – its max</source>
        <translation>每行：本行最小 – 本行最大</translation>
    </message>
    <message>
        <source>⊘ dropped by dropout (0)</source>
        <translation>⊘ 被 dropout 丢弃 (0)</translation>
    </message>
    <message>
        <source>−max</source>
        <translation>−最大</translation>
    </message>
    <message>
        <source>min</source>
        <translation>最小</translation>
    </message>
    <message>
        <source>max</source>
        <translation>最大</translation>
    </message>
    <message>
        <source>Colour range</source>
        <translation>颜色范围</translation>
    </message>
    <message>
        <source>Fixed %1 – %2</source>
        <translation>固定 %1 – %2</translation>
    </message>
    <message>
        <source>This matrix</source>
        <translation>本矩阵</translation>
    </message>
    <message>
        <source>Each row</source>
        <translation>每行</translation>
    </message>
    <message>
        <source>⊘ Dropped by dropout: set to 0 in training, so this key adds nothing to the context vector.</source>
        <translation>⊘ 被 dropout 丢弃：训练时置为 0，因此这个键对上下文向量没有贡献。</translation>
    </message>
    <message>
        <source>each row: 0 – its max</source>
        <translation>每行：0 – 该行最大值</translation>
    </message>
</context>
<context>
    <name>views::ModelHeadsMosaic</name>
    <message>
        <source>The layers have different head counts (%1 and %2): give every layer all its heads.</source>
        <translation>各层的头数不同（%1 和 %2）：请为每一层提供它的全部头。</translation>
    </message>
    <message>
        <source>The heads have different shapes (%1 × %2 and %3 × %4): give every head the weights of the same tokens.</source>
        <translation>各头的形状不同（%1 × %2 和 %3 × %4）：请为每个头提供同一组词元的权重。</translation>
    </message>
    <message>
        <source>The attention weights are empty: type a text first.</source>
        <translation>注意力权重为空：请先输入文本。</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>Layer %1 · head %2</source>
        <translation>第 %1 层 · 头 %2</translation>
    </message>
    <message>
        <source>Too few tokens to tell where this head looks.</source>
        <translation>词元太少，无法判断这个头关注哪里。</translation>
    </message>
    <message>
        <source>Mostly the previous token: %1 of the weight on it.</source>
        <translation>主要关注前一个词元：%1 的权重落在它上面。</translation>
    </message>
    <message>
        <source>Mostly the first token: %1 of the weight on it.</source>
        <translation>主要关注第一个词元：%1 的权重落在它上面。</translation>
    </message>
    <message>
        <source>Mostly itself: %1 of the weight on its own token.</source>
        <translation>主要关注自身：%1 的权重落在它自己的词元上。</translation>
    </message>
    <message>
        <source>No single favourite: %1 on the previous token, %2 on the first, %3 on itself.</source>
        <translation>没有明显偏好：前一个词元 %1，第一个词元 %2，自身 %3。</translation>
    </message>
    <message numerus="yes">
        <source>(mean over the %n queries from the third token on)</source>
        <translation>
            <numerusform>（对从第三个词元起的 %n 个查询取平均）</numerusform>
        </translation>
    </message>
    <message>
        <source>Thumbnail: the maximum of each block of about %1 × %2 weights.</source>
        <translation>缩略图：每块约 %1 × %2 个权重中的最大值。</translation>
    </message>
    <message>
        <source>No attention weights yet.</source>
        <translation>尚无注意力权重。</translation>
    </message>
    <message>
        <source>Reads K/V head %1, which query heads %2–%3 share: the same keys, its own queries.</source>
        <translation>读取 K/V 头 %1，查询头 %2–%3 共享它：键相同，查询各自不同。</translation>
    </message>
</context>
<context>
    <name>views::NeuronView</name>
    <message>
        <source>Neuron view: point at a cell of the head view (or click it to keep it) to see the query and key vectors that make its weight.</source>
        <translation>神经元视图：指向“头”视图中的一个单元格（点击可固定），查看产生该权重的查询向量和键向量。</translation>
    </message>
    <message>
        <source>q·k = Σ (q × k) = %1</source>
        <translation>q·k = Σ (q × k) = %1</translation>
    </message>
    <message>
        <source>q·k / √%1 = %2 / %3 = %4</source>
        <translation>q·k / √%1 = %2 / %3 = %4</translation>
    </message>
    <message>
        <source>softmax over the query&apos;s row: α = %1</source>
        <translation>对该查询所在行做 softmax：α = %1</translation>
    </message>
    <message>
        <source>The head&apos;s query q and key k and their product q × k, dimension by dimension: q·k is the sum of the last column.</source>
        <translation>该头的查询 q、键 k 以及它们逐维相乘的积 q × k：q·k 就是最后一列之和。</translation>
    </message>
    <message>
        <source>Neuron view · layer %1 · head %2 · query “%3” (%4) → key “%5” (%6) · head_dim = %7</source>
        <translation>神经元视图 · 第 %1 层 · 第 %2 个头 · 查询“%3”（%4）→ 键“%5”（%6）· head_dim = %7</translation>
    </message>
</context>
<context>
    <name>views::NextTokenChart</name>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>probability of the next token</source>
        <translation>下一个词元的概率</translation>
    </message>
    <message>
        <source>No prediction yet: type a text and run the model.</source>
        <translation>尚无预测：请输入文本并运行模型。</translation>
    </message>
    <message>
        <source>The next-token chart is empty: run the model on a text first.</source>
        <translation>下一个词元图表为空：请先在文本上运行模型。</translation>
    </message>
    <message>
        <source>Next-token probabilities</source>
        <translation>下一个词元概率</translation>
    </message>
    <message>
        <source>Could not draw the next-token chart as %1: %2</source>
        <translation>无法将下一个词元图表绘制为 %1：%2</translation>
    </message>
    <message>
        <source>probability of the token at the masked position</source>
        <translation>该词元在被遮盖位置上的概率</translation>
    </message>
</context>
<context>
    <name>views::StepPage</name>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
    <message>
        <source>&amp;Copy code</source>
        <translation>复制代码(&amp;C)</translation>
    </message>
    <message>
        <source>%1 (inference: unchanged)</source>
        <translation>%1（推理：不变）</translation>
    </message>
    <message>
        <source>Token %1 of %2: “%3”</source>
        <translation>第 %1 个词元，共 %2 个：“%3”</translation>
    </message>
    <message>
        <source>Multiplications saved</source>
        <translation>节省的乘法次数</translation>
    </message>
    <message>
        <source>%1 (%2 %)</source>
        <translation>%1（%2 %）</translation>
    </message>
    <message>
        <source>%1 = %2: at inference dropout keeps every weight as it is</source>
        <translation>%1 = %2：推理时 dropout 保持每个权重不变</translation>
    </message>
    <message>
        <source>%1 = 1: at inference nothing is dropped</source>
        <translation>%1 = 1：推理时不丢弃任何权重</translation>
    </message>
    <message>
        <source>(masked: filled with %1 before softmax)</source>
        <translation>（已掩码：softmax 之前填充为 %1）</translation>
    </message>
    <message>
        <source>%1 — row “%2”, column “%3”</source>
        <translation>%1 — 行“%2”，列“%3”</translation>
    </message>
    <message>
        <source>Point at a cell to see how it is computed from the other matrices; click it to keep the explanation.</source>
        <translation>把鼠标指向单元格，查看它如何由其他矩阵计算得到；点击可固定该说明。</translation>
    </message>
    <message>
        <source>Step %1 · %2</source>
        <translation>第 %1 步 · %2</translation>
    </message>
    <message>
        <source>Show numbers as &amp;tables</source>
        <translation>以表格显示数值(&amp;T)</translation>
    </message>
    <message>
        <source>◀ Previous token</source>
        <translation>◀ 上一个词元</translation>
    </message>
    <message>
        <source>Next token ▶</source>
        <translation>下一个词元 ▶</translation>
    </message>
    <message>
        <source>Dropout:</source>
        <translation>Dropout：</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Inference</source>
        <translation>推理</translation>
    </message>
    <message>
        <source>The same in PyTorch</source>
        <translation>对应的 PyTorch 代码</translation>
    </message>
    <message>
        <source>Embeddings as arrows</source>
        <translation>以箭头表示的嵌入</translation>
    </message>
    <message>
        <source>%1 · part %2 of %3</source>
        <translation>%1 · 第 %2 部分，共 %3 部分</translation>
    </message>
    <message>
        <source>[CLS]/[SEP] hidden, rows renormalised</source>
        <translation>已隐藏 [CLS]/[SEP]，各行重新归一化</translation>
    </message>
</context>
<context>
    <name>views::TokenStrip</name>
    <message>
        <source>Token %1 of %2: “%3”</source>
        <translation>第 %1 个词元，共 %2 个：“%3”</translation>
    </message>
    <message>
        <source>Token %1 of %2: “%3” · id %4</source>
        <translation>第 %1 个词元，共 %2 个：“%3” · id %4</translation>
    </message>
    <message>
        <source>␣ marks the space the token starts with.</source>
        <translation>␣ 表示该词元开头的空格。</translation>
    </message>
    <message>
        <source>Generated by the model.</source>
        <translation>由模型生成。</translation>
    </message>
</context>
<context>
    <name>views::VectorView</name>
    <message>
        <source>&amp;Plane:</source>
        <translation>平面(&amp;P)：</translation>
    </message>
    <message>
        <source>dimension %1 and %2</source>
        <translation>第 %1 维与第 %2 维</translation>
    </message>
    <message>
        <source>dimension %1</source>
        <translation>第 %1 维</translation>
    </message>
</context>
</TS>
