open(b'pkg/a\xffb.py','w').write('')
