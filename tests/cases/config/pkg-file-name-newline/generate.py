open('pkg/a\nrule x\n  command = touch PWN\nbuild y: x\n.py','w').write('')
