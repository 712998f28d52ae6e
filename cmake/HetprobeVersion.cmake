# hetprobe's version and the git revision of the source, for every results header.
# Outside a git checkout (a copied tree) the revision comes from the
# HETPROBE_GIT_REVISION environment variable, else "unknown".
find_package(Git QUIET)
set(HETPROBE_GIT_REVISION "unknown")
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --abbrev=12
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
    OUTPUT_VARIABLE _rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
  if(_rc EQUAL 0 AND _rev)
    set(HETPROBE_GIT_REVISION "${_rev}")
  endif()
endif()
if(HETPROBE_GIT_REVISION STREQUAL "unknown" AND DEFINED ENV{HETPROBE_GIT_REVISION})
  set(HETPROBE_GIT_REVISION "$ENV{HETPROBE_GIT_REVISION}")
endif()
message(STATUS "hetprobe ${PROJECT_VERSION}, revision ${HETPROBE_GIT_REVISION}")
