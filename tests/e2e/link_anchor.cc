// link_anchor.cc -- makes the static link pull the sim and serial backends out
// of libspu.a. host/src/core/device.c refers to them through weak symbols,
// which a static link does not resolve from an archive; until device.c holds
// strong references this anchor keeps the e2e suite on the real transports.
// (Not an API use: the tests themselves call only the public spu_* API.)
#include "core/backend.h"

extern "C" const spu_backend_ops *const spu_e2e_link_anchor_[] = {&spu_backend_sim,
                                                                  &spu_backend_serial};
