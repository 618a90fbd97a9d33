// Found only through the cache's INCLUDE_DIRECTORIES; its macros only through DEFINES and KILN_DEFINES.
#pragma once
#if !defined(TOOL_SCALE) || !defined(TOOL_ONLY)
#error "tool_kernel.cu needs TOOL_SCALE (the cache's DEFINES) and TOOL_ONLY (its KILN_DEFINES)"
#endif
constexpr int k_tool_scale = TOOL_SCALE * TOOL_ONLY;
