# Build-time checks for CI, off by default: -Werror (a user's newer compiler
# may warn where ours does not, and must not break their build) and sanitizers.
# Both go on hetprobe_options, so every hetprobe target and test gets them, and
# nothing else (no global flags).
option(HETPROBE_WERROR "Treat compiler warnings as errors (CI)" OFF)
set(HETPROBE_SANITIZE "" CACHE STRING
  "Sanitizers for every hetprobe target, as -fsanitize takes them (e.g. address,undefined); empty: none")

# hipcc is run by a custom command (probes/CMakeLists.txt): its flags are passed there.
set(HETPROBE_HIPCC_WARNING_FLAGS -Wall -Wextra -Wno-unused-parameter)
if(HETPROBE_WERROR)
  list(APPEND HETPROBE_HIPCC_WARNING_FLAGS -Werror)
  target_compile_options(hetprobe_options INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Werror>
    # nvcc: its own warnings and the host compiler's, as errors.
    $<$<COMPILE_LANGUAGE:CUDA>:--Werror=all-warnings -Xcompiler=-Werror>)
endif()

if(HETPROBE_SANITIZE)
  if(HETPROBE_ENABLE_PYTHON)
    # An instrumented module needs the sanitizer runtime preloaded into python.
    message(FATAL_ERROR "HETPROBE_SANITIZE is for the C++ executables and tests; build it with HETPROBE_ENABLE_PYTHON=OFF")
  endif()
  # -fno-sanitize-recover: an undefined-behaviour report fails the test that hit it.
  set(hetprobe_sanitize_flags -fsanitize=${HETPROBE_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_compile_options(hetprobe_options INTERFACE $<$<COMPILE_LANGUAGE:CXX>:${hetprobe_sanitize_flags}>)
  target_link_options(hetprobe_options INTERFACE -fsanitize=${HETPROBE_SANITIZE})
  message(STATUS "hetprobe sanitizers: ${HETPROBE_SANITIZE}")
endif()
