open('kern/a$b.cu','w').write('__global__ void k2(){}\n'); open('kern/c d.cu','w').write('__global__ void k3(){}\n'); open('kern/e|f.cu','w').write('__global__ void k4(){}\n')
