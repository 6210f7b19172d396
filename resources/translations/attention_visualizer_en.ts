<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>ExploreWindow</name>
    <message numerus="yes">
        <source>Computing %n token(s) in the background…</source>
        <translation>
            <numerusform>Computing %n token in the background…</numerusform>
            <numerusform>Computing %n tokens in the background…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> Only the first %n token(s) are stepped through.</source>
        <translation>
            <numerusform> Only the first token is stepped through.</numerusform>
            <numerusform> Only the first %n tokens are stepped through.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n target token(s)</source>
        <translation>
            <numerusform>%n target token</numerusform>
            <numerusform>%n target tokens</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n source token(s)</source>
        <translation>
            <numerusform>%n source token</numerusform>
            <numerusform>%n source tokens</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ModelSession</name>
    <message numerus="yes">
        <source>The text is %n tokens but the model reads at most n_positions = %1: shorten it.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ModelWindow</name>
    <message numerus="yes">
        <source>Generate %n tokens</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n tokens</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n generated, </source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>views::ExploreKvStepper</name>
    <message numerus="yes">
        <source>%n earlier token(s)</source>
        <translation>
            <numerusform>%n earlier token</numerusform>
            <numerusform>%n earlier tokens</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n token(s)</source>
        <translation>
            <numerusform>%n token</numerusform>
            <numerusform>%n tokens</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n head(s)</source>
        <translation>
            <numerusform>%n head</numerusform>
            <numerusform>%n heads</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>views::ModelHeadsMosaic</name>
    <message numerus="yes">
        <source>(mean over the %n queries from the third token on)</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
</TS>
