#include "sim.h"
int fuse_serve(struct sim_model *m, const char *mp, bool fg, bool d){(void)m;(void)mp;(void)fg;(void)d;return -1;}
