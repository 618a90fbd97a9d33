# Warnings every Kiln target compiles with; applied per target so consumers are not affected.
function(kiln_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                           -Wno-sign-conversion -Werror=return-type)
endfunction()
