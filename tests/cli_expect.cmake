# Shared by the CLI test scripts (cmake -P): the verdict on one divbench run that should end with
# exit code `code` and a stderr matching `pattern` — for a failure, on exactly one
# "divbench: error: ..." line. Sets `out` to "" when the run is as expected, else to the reason.
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
