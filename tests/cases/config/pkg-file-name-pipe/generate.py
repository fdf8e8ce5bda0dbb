open('pkg/a|b.py','w').write('')
