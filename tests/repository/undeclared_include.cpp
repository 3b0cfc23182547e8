// Compiled by CTest (tests/CMakeLists.txt, repository.undeclared_include_*) with the
// include roots of chosen modules only: with core's root alone the include of graph must
// fail ("graph/network.h: No such file"), with core's and graph's roots it compiles. This
// shows the build refusing an include its module does not declare (cmake/RoutelabModule.cmake).
#include "core/ids.h"
#include "graph/network.h"

int main() { return routelab::Network().nodeCount() == 0 ? 0 : 1; }
