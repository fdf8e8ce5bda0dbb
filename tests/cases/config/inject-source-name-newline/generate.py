open('kern/a\nb.cu','w').write('__global__ void k2(){}\n')
