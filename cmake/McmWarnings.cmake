# mcm_warnings(target): the warning set for MCM's own code (not third-party headers).
function(mcm_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:C,CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
  # GCC's flow analysis under -fsanitize reports uninitialised reads that are not (in
  # <regex> and Catch2's main, for example): off in sanitized builds only.
  if(MCM_SANITIZE)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C,CXX>:-Wno-maybe-uninitialized>)
  endif()
  if(MCM_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C,CXX>:-Werror>)
  endif()
endfunction()
