# probe.py: what cuwheel asks an interpreter (run as python -I -c, embedded into cuwheel at
# build time). Python 2-compatible syntax on purpose: an old interpreter must still say its
# version so that the message is "Python 2.7 skipped", not a syntax error. The answer is one
# JSON line after the mark toolchain/probe.c's PROBE_MARK names, so that whatever else the
# interpreter writes cannot be mistaken for it.
import sys, json, sysconfig, platform
v = sys.version_info
p = sysconfig.get_paths()
r = {'version': '%d.%d.%d' % (v[0], v[1], v[2]), 'major': v[0], 'minor': v[1],
     'implementation': platform.python_implementation().lower(),
     'abiflags': getattr(sys, 'abiflags', ''),
     'gil_disabled': bool(sysconfig.get_config_var('Py_GIL_DISABLED')),
     'ext_suffix': sysconfig.get_config_var('EXT_SUFFIX') or '',
     'soabi': sysconfig.get_config_var('SOABI') or '',
     'include': p.get('include', ''), 'purelib': p.get('purelib', ''),
     'platform': sysconfig.get_platform(), 'executable': sys.executable}
# pybind11's headers, where the interpreter can import the package (a pybind11 kind's
# build finds them as pybind11's own setup helpers do): a cheap import, always asked.
try:
    import pybind11
    r['pybind11'] = {'include': pybind11.get_include(),
                     'version': str(getattr(pybind11, '__version__', ''))}
except Exception as e:
    r['pybind11'] = {'error': '%s: %s' % (type(e).__name__, e)}
if sys.argv[-1] == 'torch':
    try:
        import os, torch
        d = os.path.dirname(torch.__file__)
        c = torch._C
        inc = [os.path.join(d, 'include'),
               os.path.join(d, 'include', 'torch', 'csrc', 'api', 'include')]
        abi = getattr(c, '_GLIBCXX_USE_CXX11_ABI', None)
        t = {'present': True, 'version': str(torch.__version__),
             'cuda': getattr(torch.version, 'cuda', None),
             'cxx11_abi': -1 if abi is None else int(bool(abi)),
             'include_dirs': [i for i in inc if os.path.isdir(i)],
             'lib_dir': os.path.join(d, 'lib'),
             'pybind11_compiler_type': getattr(c, '_PYBIND11_COMPILER_TYPE', None),
             'pybind11_stdlib': getattr(c, '_PYBIND11_STDLIB', None),
             'pybind11_build_abi': getattr(c, '_PYBIND11_BUILD_ABI', None)}
        # OpenMP as torch's own builds (and setup.py files like gsplat's) decide it.
        try:
            pi = torch.__config__.parallel_info()
            t['openmp'] = 'backend: OpenMP' in pi and 'OpenMP not found' not in pi
        except Exception:
            pass
        # The ABI defines cpp_extension itself adds, asked from its own helpers: torch 2.11
        # adds none, older ones -DPYBIND11_* and -D_GLIBCXX_USE_CXX11_ABI=.
        try:
            import warnings
            from torch.utils import cpp_extension as ce
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                fl = list(getattr(ce, '_get_pybind11_abi_build_flags', list)())
                g = getattr(ce, '_get_glibcxx_abi_build_flags', None)
                if g:
                    fl += list(g())
                elif hasattr(ce.BuildExtension, '_add_gnu_cpp_abi_flag') and abi is not None:
                    fl.append('-D_GLIBCXX_USE_CXX11_ABI=%d' % int(bool(abi)))
            # cpp_extension writes them into ninja's shell command lines (torch 2.6:
            # -DPYBIND11_COMPILER_TYPE=\"_gcc\"): the compiler gets them as the shell reads them.
            import shlex
            t['abi_flags'] = [w for f in fl for w in shlex.split(str(f))]
        except Exception as e:
            t['abi_flags_error'] = '%s: %s' % (type(e).__name__, e)
    except Exception as e:
        t = {'present': False, 'error': '%s: %s' % (type(e).__name__, e)}
    r['torch'] = t
elif sys.argv[-1] == 'torch-files':
    # torch's answers read from its files, torch not imported (that takes seconds, tens on a
    # cold disk): what a build starts its kernels' compiles from until the import answers.
    # 'unread' says why not, where torch's cpp_extension asks torch._C for ABI defines.
    import os, re
    t = {'present': False, 'from_files': True}
    try:
        import importlib.util
        s = importlib.util.find_spec('torch')
        d = os.path.dirname(s.origin) if s is not None and s.origin else None
        if d:
            def read(rel):
                with open(os.path.join(d, rel)) as f:
                    return f.read()

            def assigned(src, name):
                m = re.search(r"^%s(?:[ \t]*:[^=\n]*)?[ \t]*=[ \t]*(?:'([^'\n]*)'|None)[ \t]*$" %
                              name, src, re.M)
                return m.group(1) if m else None

            vpy, ce = read('version.py'), read(os.path.join('utils', 'cpp_extension.py'))
            no_abi = re.search(r'def _get_pybind11_abi_build_flags\(\)[^:\n]*:\n\s+return \[\]\n',
                               ce) or 'def _get_pybind11_abi_build_flags' not in ce
            if not assigned(vpy, '__version__'):
                t['unread'] = 'torch/version.py names no __version__'
            elif not no_abi or '_get_glibcxx_abi_build_flags' in ce or \
                    '_add_gnu_cpp_abi_flag' in ce:
                t['unread'] = 'its cpp_extension asks torch._C for ABI defines'
            else:
                lib = os.path.join(d, 'lib')
                with open(os.path.join(lib, 'libc10.so'), 'rb') as f:
                    c10 = f.read()
                inc = [os.path.join(d, 'include'),
                       os.path.join(d, 'include', 'torch', 'csrc', 'api', 'include')]
                t.update({'present': True, 'version': assigned(vpy, '__version__'),
                          'cuda': assigned(vpy, 'cuda'),
                          'cxx11_abi': int(b'St7__cxx11' in c10),
                          'include_dirs': [i for i in inc if os.path.isdir(i)],
                          'lib_dir': lib, 'abi_flags': [],
                          'openmp': os.path.exists(os.path.join(lib, 'libgomp.so.1'))})
    except Exception as e:
        t['unread'] = '%s: %s' % (type(e).__name__, e)
    r['torch'] = t
sys.stdout.write('\n@@cuwheel-probe@@' + json.dumps(r) + '\n')
