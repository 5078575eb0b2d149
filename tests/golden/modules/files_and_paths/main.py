# open() for text with `with`, pathlib.Path and os.path on the case's own files.
import os
import os.path
from pathlib import Path
here = Path("data")
print(here / "notes.txt", repr(Path("a//b/./c/")), Path("/x") / "y", "rel" / Path("z"))
p = here / "notes.txt"
print(p.name, p.suffix, p.stem, p.parent, p.parent.parent, p.parts, p.exists(), (here / "none").exists())
print(p.is_file(), here.is_dir(), Path("archive.tar.gz").suffix, Path("archive.tar.gz").stem, Path(".bashrc").suffix)
print(p.with_suffix(".md"), p.with_name("other.txt"), isinstance(p, Path), isinstance(p, os.PathLike))
print(p.read_text().splitlines())
with open(p) as f:
    print(f.readline().rstrip(), f.closed)
    print([line.strip() for line in f])
print(f.closed)
with open(os.path.join("data", "notes.txt")) as f:
    print(len(f.read()), f.name)
print(os.path.join("data", "sub", "f.json"), os.path.join("a", "/abs", "b"), os.path.join("a/", "b"))
print(os.path.basename("data/notes.txt"), os.path.dirname("data/notes.txt"), os.path.dirname("notes.txt"))
print(os.path.splitext("data/model.ckpt.json"), os.path.splitext(".hidden"), os.path.splitext("data.d/noext"))
print(os.path.exists("data/notes.txt"), os.path.exists("data/absent"), os.path.isdir("data"), os.fspath(p))
out = Path("written.tmp")
print(out.write_text("line one\nline two\n"))
with open(out, "a") as f:
    print(f.write("appended\n"))
    print("printed too", file=f)
print(out.read_text().splitlines())
with open("written.tmp", "w") as f:
    f.writelines(["x\n", "y\n"])
print(open("written.tmp").readlines())
out.unlink()
print(out.exists())
try:
    open("data/absent.txt")
except FileNotFoundError as e:
    print(e, e.errno, e.filename)
try:
    Path("data").read_text()
except IsADirectoryError as e:
    print(type(e).__name__, isinstance(e, OSError))
f = open(p)
f.close()
try:
    f.read()
except ValueError as e:
    print(e)
# expect: data/notes.txt PosixPath('a/b/c') /x/y rel/z
# expect: notes.txt .txt notes data . ('data', 'notes.txt') True False
# expect: True True .gz archive.tar 
# expect: data/notes.md data/other.txt True True
# expect: ['first line', 'second line', 'third line']
# expect: first line False
# expect: ['second line', 'third line']
# expect: True
# expect: 34 data/notes.txt
# expect: data/sub/f.json /abs/b a/b
# expect: notes.txt data 
# expect: ('data/model.ckpt', '.json') ('.hidden', '') ('data.d/noext', '')
# expect: True False True data/notes.txt
# expect: 18
# expect: 9
# expect: ['line one', 'line two', 'appended', 'printed too']
# expect: ['x\n', 'y\n']
# expect: False
# expect: [Errno 2] No such file or directory: 'data/absent.txt' 2 data/absent.txt
# expect: IsADirectoryError True
# expect: I/O operation on closed file.
