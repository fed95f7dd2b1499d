# Used by v8x's WAMR CMake build (deno_core `quickjs` engine): no downloads.
set(FETCHCONTENT_SOURCE_DIR_SIMDE "/usr/include" CACHE PATH "" FORCE)
set(FETCHCONTENT_FULLY_DISCONNECTED ON CACHE BOOL "" FORCE)
