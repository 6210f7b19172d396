// docs/cli.md against the built attention-cli: every subcommand that `attention-cli --help` lists
// has a "## attention-cli <name>" section, and the long options of `attention-cli <name> --help`
// are exactly the ones that section's "| Option |" table documents (plus the "## Every
// subcommand" table's). A new, renamed or removed option fails here until the page follows.
#include <QFile>
#include <QMap>
#include <QRegularExpression>
#include <QSet>
#include <QStringList>
#include <QTest>
#include <algorithm>

#include "cli_run.h"

#ifndef ATTN_CLI_DOCS
#error "ATTN_CLI_DOCS must name docs/cli.md (see tests/app/CMakeLists.txt)"
#endif

namespace {

using OptionSet = QSet<QString>;

// The subcommand names of the top-level help: the lines "  <name>  <summary>" under
// "Subcommands:", up to the first empty line.
QStringList listedSubcommands(const QString& help) {
    QStringList names;
    const QStringList lines = help.split(QLatin1Char('\n'));
    const qsizetype start = lines.indexOf(QStringLiteral("Subcommands:"));
    static const QRegularExpression entry(QStringLiteral("^  ([a-z][a-z0-9-]*)\\s{2,}\\S"));
    for (qsizetype i = start + 1; start >= 0 && i < lines.size() && !lines[i].isEmpty(); ++i) {
        const QRegularExpressionMatch m = entry.match(lines[i]);
        if (m.hasMatch()) names << m.captured(1);
    }
    return names;
}

// The long options of a subcommand's --help. QCommandLineParser writes each option as
// "  -h, --help, --help-all  Description" or "  --module <NAME>  Description": the names sit
// two spaces in, the description after two or more spaces (or on the next lines, indented
// further, when the names are long). Only the name column is read, so a description that
// mentions another option ("must divide --num-heads") does not count.
OptionSet helpOptions(const QString& help) {
    OptionSet options;
    const QStringList lines = help.split(QLatin1Char('\n'));
    const qsizetype start = lines.indexOf(QStringLiteral("Options:"));
    static const QRegularExpression nameColumn(QStringLiteral("^  (-\\S.*?)(\\s{2,}|$)"));
    static const QRegularExpression longName(QStringLiteral("--([a-z0-9][a-z0-9-]*)"));
    for (qsizetype i = start + 1; start >= 0 && i < lines.size() && !lines[i].isEmpty(); ++i) {
        const QRegularExpressionMatch m = nameColumn.match(lines[i]);
        if (!m.hasMatch()) continue;
        for (auto it = longName.globalMatch(m.captured(1)); it.hasNext();)
            options.insert(QStringLiteral("--") + it.next().captured(1));
    }
    return options;
}

// One "## ..." section of docs/cli.md: its options, and the table rows it could not read.
struct DocSection {
    OptionSet options;
    QStringList badRows;
};

// The sections of docs/cli.md by heading ("attention-cli compute", "Every subcommand"). A
// section runs to the next "## " heading ("### " subsections belong to it). Its options are
// the first cells of the tables whose header starts "| Option |": each row begins
// "| `--name" (a value may follow, "`--mask-convention zero\|one`").
QMap<QString, DocSection> docSections(const QString& markdown) {
    QMap<QString, DocSection> sections;
    static const QRegularExpression optionCell(QStringLiteral("^\\|\\s*`--([a-z0-9][a-z0-9-]*)"));
    QString current;
    bool inOptionTable = false;
    for (const QString& line : markdown.split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1String("## "))) {
            current = line.mid(3).trimmed();
            sections[current];  // a section without a table still exists
            inOptionTable = false;
        } else if (!line.startsWith(QLatin1Char('|'))) {
            inOptionTable = false;
        } else if (QRegularExpression(QStringLiteral("^\\|\\s*Option\\s*\\|"))
                       .match(line)
                       .hasMatch()) {
            inOptionTable = true;
        } else if (inOptionTable && !current.isEmpty() && !line.startsWith(QLatin1String("|---"))) {
            const QRegularExpressionMatch m = optionCell.match(line);
            if (m.hasMatch())
                sections[current].options.insert(QStringLiteral("--") + m.captured(1));
            else
                sections[current].badRows << line;
        }
    }
    return sections;
}

QString sorted(const OptionSet& set) {
    QStringList list(set.begin(), set.end());
    std::sort(list.begin(), list.end());
    return list.join(QStringLiteral(", "));
}

QString readDocs() {
    QFile file(QStringLiteral(ATTN_CLI_DOCS));
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(file.readAll());
}

const QString kSectionPrefix = QStringLiteral("attention-cli ");
const QString kCommonSection = QStringLiteral("Every subcommand");

}  // namespace

class TestCliDocs : public QObject {
    Q_OBJECT

private slots:
    void parsersReadKnownText();
    void everySubcommandHasASection();
    void optionsMatchHelp_data();
    void optionsMatchHelp();
};

// The two readers on text whose answer is known, so a reader that finds nothing cannot make the
// comparisons below pass.
void TestCliDocs::parsersReadKnownText() {
    QCOMPARE(listedSubcommands(QStringLiteral("Usage: attention-cli <subcommand>\n\nSubcommands:\n"
                                              "  compute   Run a module\n"
                                              "  tokenize  Split a text\n\n"
                                              "  notes     after the list\n")),
             (QStringList{"compute", "tokenize"}));

    const QString help = QStringLiteral(
        "Usage: attention-cli decode [options]\nFeed N tokens.\n\nOptions:\n"
        "  -?, -h, --help             Displays help on commandline options.\n"
        "  --help-all                 Displays help including Qt specific options.\n"
        "  --num-heads <N>            Heads; must divide --d-model (default 2).\n"
        "  --a-very-long-option-name-that-fills-the-column <FILE>\n"
        "                             Read --input instead.\n"
        "  --rope                     Rotary position embeddings.\n");
    QCOMPARE(sorted(helpOptions(help)),
             QStringLiteral("--a-very-long-option-name-that-fills-the-column, --help, "
                            "--help-all, --num-heads, --rope"));

    const QString markdown = QStringLiteral(
        "# Title\n\n## attention-cli decode\n\n```\nattention-cli decode --length N\n```\n\n"
        "| Option | Meaning |\n|---|---|\n| `--length N` | Tokens, see `--seed` |\n"
        "| `--mask causal\\|window` | The mask |\n| --typo | no backquotes |\n\n"
        "| NAME | what |\n|---|---|\n| `--not-an-option` | another table |\n\n"
        "### More\n\n| Option | Meaning |\n|---|---|\n| `--rope` | RoPE |\n\n"
        "## Model folders\n\nText.\n");
    const QMap<QString, DocSection> sections = docSections(markdown);
    QCOMPARE(sections.keys(), (QStringList{"Model folders", "attention-cli decode"}));
    QCOMPARE(sorted(sections["attention-cli decode"].options),
             QStringLiteral("--length, --mask, --rope"));
    QCOMPARE(sections["attention-cli decode"].badRows, QStringList{"| --typo | no backquotes |"});
    QVERIFY(sections["Model folders"].options.isEmpty());
}

// The sections of docs/cli.md and the subcommands of --help are the same names.
void TestCliDocs::everySubcommandHasASection() {
    const CliRun run = runCli({QStringLiteral("--help")});
    QCOMPARE(run.exitCode, 0);
    const QStringList listed = listedSubcommands(QString::fromUtf8(run.out));
    // Today's eight; a new subcommand extends this list and docs/cli.md together.
    for (const char* name :
         {"compute", "decode", "export", "steps", "handout", "tokenize", "forward", "generate"})
        QVERIFY2(listed.contains(QLatin1String(name)), name);

    const QString docs = readDocs();
    QVERIFY2(!docs.isEmpty(), ATTN_CLI_DOCS " is missing or empty");
    const QMap<QString, DocSection> sections = docSections(docs);
    QStringList documented;
    for (const QString& heading : sections.keys())
        if (heading.startsWith(kSectionPrefix)) documented << heading.mid(kSectionPrefix.size());
    QStringList missing, extra;
    for (const QString& name : listed)
        if (!documented.contains(name)) missing << name;
    for (const QString& name : documented)
        if (!listed.contains(name)) extra << name;
    QVERIFY2(
        missing.isEmpty() && extra.isEmpty(),
        qPrintable(QStringLiteral("docs/cli.md needs a \"## attention-cli <name>\" section for "
                                  "each subcommand of attention-cli --help; missing: %1; "
                                  "sections for no subcommand: %2")
                       .arg(missing.join(QStringLiteral(", ")), extra.join(QStringLiteral(", ")))));
    QVERIFY2(sections.contains(kCommonSection),
             "docs/cli.md needs a \"## Every subcommand\" section with the options all share");
}

void TestCliDocs::optionsMatchHelp_data() {
    QTest::addColumn<QString>("name");
    const CliRun run = runCli({QStringLiteral("--help")});
    QVERIFY(run.exitCode == 0);
    for (const QString& name : listedSubcommands(QString::fromUtf8(run.out)))
        QTest::newRow(qPrintable(name)) << name;
}

// `attention-cli <name> --help` and the section's tables name the same long options.
void TestCliDocs::optionsMatchHelp() {
    QFETCH(QString, name);
    const CliRun run = runCli({name, QStringLiteral("--help")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const OptionSet inHelp = helpOptions(QString::fromUtf8(run.out));
    QVERIFY2(inHelp.contains(QStringLiteral("--help")), run.out.constData());
    QVERIFY2(inHelp.size() >= 3, run.out.constData());  // --help, --help-all and its own

    const QMap<QString, DocSection> sections = docSections(readDocs());
    const QString heading = kSectionPrefix + name;
    QVERIFY2(sections.contains(heading), qPrintable(QStringLiteral("no \"## %1\"").arg(heading)));
    const DocSection& section = sections[heading];
    QVERIFY2(section.badRows.isEmpty(),
             qPrintable(QStringLiteral("rows of an Option table under \"## %1\" that do not "
                                       "start with | `--name: %2")
                            .arg(heading, section.badRows.join(QStringLiteral(" / ")))));
    const OptionSet documented = section.options + sections[kCommonSection].options;

    const OptionSet missing = inHelp - documented;
    const OptionSet extra = documented - inHelp;
    QVERIFY2(missing.isEmpty() && extra.isEmpty(),
             qPrintable(QStringLiteral("docs/cli.md \"## %1\" and `attention-cli %2 --help` "
                                       "differ; in --help but not documented: %3; documented "
                                       "but not in --help: %4")
                            .arg(heading, name, sorted(missing), sorted(extra))));
}

QTEST_GUILESS_MAIN(TestCliDocs)
#include "test_cli_docs.moc"
