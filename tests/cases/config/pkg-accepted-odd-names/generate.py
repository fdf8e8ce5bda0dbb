open('pkg/a b$c:d.py','w').write(''); open('pkg/été.py','w').write('')
