// The Catch2 main of mcm_unit_tests (kept alone: it is the slow file to compile).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

int main(int argc, char** argv) {
  return Catch::Session().run(argc, argv);
}
