__global__ void demo_kernel(void) {}
