open('kern/a;\\$b.cu','w').write('__global__ void k2(){}\n')
