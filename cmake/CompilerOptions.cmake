# Warnings and sanitizers for every target of the project (not for imported ones).
add_library(colossalai_compile_options INTERFACE)
target_compile_options(colossalai_compile_options INTERFACE -Wall -Wextra -Wpedantic)
if(COLOSSALAI_WERROR)
    target_compile_options(colossalai_compile_options INTERFACE -Werror)
endif()

if(COLOSSALAI_SANITIZE)
    # Applied globally so that GoogleTest's main and every module agree on the runtime.
    add_compile_options(-fsanitize=${COLOSSALAI_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
    add_link_options(-fsanitize=${COLOSSALAI_SANITIZE})
endif()
