# hetprobe's version and the git revision of the source, for every results header.
# The HETPROBE_GIT_REVISION environment variable wins when set (a copied tree,
# whose .git may be stale, says which revision it is); else `git describe`;
# else "unknown".
find_package(Git QUIET)
set(HETPROBE_GIT_REVISION "unknown")
if(DEFINED ENV{HETPROBE_GIT_REVISION} AND NOT "$ENV{HETPROBE_GIT_REVISION}" STREQUAL "")
  set(HETPROBE_GIT_REVISION "$ENV{HETPROBE_GIT_REVISION}")
elseif(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --abbrev=12
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
    OUTPUT_VARIABLE _rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
  if(_rc EQUAL 0 AND _rev)
    set(HETPROBE_GIT_REVISION "${_rev}")
  endif()
endif()
message(STATUS "hetprobe ${PROJECT_VERSION}, revision ${HETPROBE_GIT_REVISION}")
