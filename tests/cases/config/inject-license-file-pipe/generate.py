open('LIC|X','w').write('x')
