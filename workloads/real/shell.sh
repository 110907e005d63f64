# Run by Debian's dash in the real mix (issue 29): pipes between subshells,
# redirection into a file and back, a here-document, a subshell's exit
# status, arithmetic. Builtins only: qemu-alpha, the oracle, cannot execve
# an Alpha program, so the script starts no other program. Paths are
# relative to the mix's working directory (/ in the guest, the build's
# mixes/real under qemu-alpha).
i=0
sum=0
while [ $i -lt 4000 ]; do
  sum=$((sum + i * i % 7))
  i=$((i + 1))
done
echo "sum $sum"
for w in alpha beta gamma delta; do echo "$w"; done > etc/real/shell-words.txt
n=0
while read -r w; do
  n=$((n + 1))
  echo "$n: $w"
done < etc/real/shell-words.txt
echo "words: $(while read -r w; do printf '%s ' "$w"; done < etc/real/shell-words.txt)"
(cd etc && [ -d real ] && echo "the subshell sees real/"; exit 3)
echo "subshell status $?"
[ -d real ] || echo "the shell itself stayed where it was"
printf 'x\ny\nz\n' | while read -r l; do echo "piped $l"; done |
  { c=0; while read -r l; do c=$((c + 1)); done; echo "pipeline lines $c"; }
copy() { while read -r l; do echo "$l"; done; }
copy << END
here-document line 1
here-document line 2 with $sum
END
echo "to stderr" 1>&2
exit 0
