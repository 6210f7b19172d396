// attention-visualizer: the guided walkthrough window.
#include "app/gui/gui_setup.h"

int main(int argc, char* argv[]) { return runAttentionVisualizer(argc, argv); }
