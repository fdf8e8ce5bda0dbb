open('pkg/a\x01b.py','w').write('')
