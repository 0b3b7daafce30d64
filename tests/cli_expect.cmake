# Shared by the CLI test scripts (cmake -P).

# divbench_cli_require(VAR...): stop with "pass -DVAR=..." when a -D variable the script needs is not set.
function(divbench_cli_require)
  foreach(v ${ARGN})
    if(NOT ${v})
      message(FATAL_ERROR "pass -D${v}=...")
    endif()
  endforeach()
endfunction()

# The verdict on one divbench run that should end with exit code `code` and a stderr matching `pattern`
# — for a failure, on exactly one "divbench: error: ..." line. Sets `out` to "" when the run is as expected, else to the reason.
function(divbench_cli_verdict out code pattern rc err)
  set(bad "")
  if(NOT rc EQUAL code)
    set(bad "exit ${rc}, expected ${code}")
  elseif(NOT err MATCHES "${pattern}")
    set(bad "stderr does not match '${pattern}'")
  elseif(code GREATER 0)
    string(REGEX MATCHALL "divbench: error:" hits "${err}")
    list(LENGTH hits n)
    if(NOT n EQUAL 1)
      set(bad "expected exactly one error line, got ${n}")
    endif()
  endif()
  set(${out} "${bad}" PARENT_SCOPE)
endfunction()

# Failure accounting shared by the scripts: a global count, one SEND_ERROR per failed case, and one
# FATAL_ERROR at the end (so every case runs and all failures are listed).
function(divbench_cli_fail msg)
  message(SEND_ERROR "${msg}")
  get_property(n GLOBAL PROPERTY DIVBENCH_CLI_FAILURES)
  if(NOT n)
    set(n 0)
  endif()
  math(EXPR n "${n} + 1")
  set_property(GLOBAL PROPERTY DIVBENCH_CLI_FAILURES ${n})
endfunction()

# Report one case: a failure when `verdict` is non-empty, else a STATUS line.
function(divbench_cli_report verdict what err ok_line)
  if(verdict)
    divbench_cli_fail("${what}: ${verdict}\n  stderr: ${err}")
  else()
    message(STATUS "${ok_line}")
  endif()
endfunction()

function(divbench_cli_finish what)
  get_property(n GLOBAL PROPERTY DIVBENCH_CLI_FAILURES)
  if(n GREATER 0)
    message(FATAL_ERROR "${n} ${what} case(s) failed")
  endif()
endfunction()
