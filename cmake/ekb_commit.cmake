# Writes the commit ekb is built from (with -dirty when tracked files differ from it) into a header,
# at every build rather than once at configure time: every stored run names the code that made it.
# The file is rewritten only when its content changes, so an unchanged commit rebuilds nothing.
#   cmake -DSOURCE_DIR=... -DOUTPUT=.../ekb_commit.h -P ekb_commit.cmake
cmake_minimum_required(VERSION 3.18)  # file(CONFIGURE), and its @VAR@ rules in script mode
execute_process(COMMAND git describe --always --dirty --abbrev=7 --match=ekb-no-tag-matches-this
                WORKING_DIRECTORY "${SOURCE_DIR}" OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT commit)
  set(commit unknown)
endif()
file(CONFIGURE OUTPUT "${OUTPUT}" CONTENT "#define EKB_GIT_COMMIT \"@commit@\"\n" @ONLY)
