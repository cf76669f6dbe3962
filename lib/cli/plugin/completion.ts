/**
 * `kubectl dsr completion bash|zsh`: a shell script that completes the
 * verbs, sub-verbs and flags of the verb table (plugin-verbs.ts). The bash
 * script is also kubectl's plugin completer: installed as
 * `kubectl_complete-dsr` and run with the words after `kubectl dsr`, it
 * prints one candidate a line and cobra's `:4` (no file completion), as
 * kubectl asks of plugins (staging/src/k8s.io/kubectl/pkg/cmd/plugin/
 * plugin_completion.go).
 */
import type { Shell } from './parse-plugin-args.js';
import { FLAGS, type FlagName } from './plugin-flags.js';
import { flagsOf, GROUPS, VERBS } from './plugin-verbs.js';

/** Returns `--long` and `-s` of each flag. */
const spellings = (flags: readonly FlagName[]): string =>
  flags
    .flatMap((n) => {
      const s = (FLAGS[n] as { short?: string }).short;
      return [`--${n}`, ...(s ? [`-${s}`] : [])];
    })
    .join(' ');

/** The flags whose value is the next word when not given with `=`. */
const VALUE_FLAGS = spellings(
  (Object.keys(FLAGS) as FlagName[]).filter((n) => FLAGS[n].type === 'string')
).replaceAll(' ', '|');

/** The POSIX function both shells run: words so far → candidates. */
const candidates = (): string => {
  const tops = [
    ...new Set([...VERBS.map((v) => v.path[0]), 'clusters', 'fleet', 'help']),
  ].join(' ');
  const flagCases = VERBS.map(
    (v) => `      '${v.path.join(' ')}') list='${spellings(flagsOf(v))}' ;;`
  );
  const subCases = GROUPS.map(
    (g) =>
      `      ${g}) list='${VERBS.filter((v) => v.path[0] === g)
        .map((v) => v.path[1])
        .join(' ')}' ;;`
  );
  return `__dsr_candidates() {
  local IFS=' ' cur='' w1='' w2='' skip='' n=$# i=0 a key list='' c
  for a in "$@"; do
    i=$((i + 1))
    if [ "$i" -eq "$n" ]; then cur=$a; break; fi
    if [ -n "$skip" ]; then skip=''; continue; fi
    case "$a" in
      --*=*) ;;
      ${VALUE_FLAGS}) skip=1 ;;
      -*) ;;
      *) if [ -z "$w1" ]; then w1=$a; elif [ -z "$w2" ]; then w2=$a; fi ;;
    esac
  done
  case "$w1" in
    ${GROUPS.join('|')}) key="$w1 $w2" ;;
    *) key=$w1 ;;
  esac
  case "$cur" in
    -*)
      case "$key" in
${flagCases.join('\n')}
      esac ;;
    *)
      if [ -z "$w1" ] || { [ "$w1" = help ] && [ -z "$w2" ]; }; then
        list='${tops}'
      elif [ -z "$w2" ]; then
        case "$w1" in
${subCases.join('\n')}
          completion) list='bash zsh' ;;
        esac
      fi ;;
  esac
  for c in $list; do
    case "$c" in "$cur"*) printf '%s\\n' "$c" ;; esac
  done
}`;
};

const BASH = (): string => `# bash completion of dsr and kubectl dsr.
#   source <(dsr completion bash)          completes dsr and kubectl-dsr
#   installed as kubectl_complete-dsr on PATH, completes kubectl dsr
${candidates()}

_dsr_bash() {
  local IFS=$'\\n'
  COMPREPLY=($(__dsr_candidates "\${COMP_WORDS[@]:1:COMP_CWORD}"))
}

if (return 0 2>/dev/null); then
  complete -o default -F _dsr_bash dsr kubectl-dsr
else
  __dsr_candidates "$@"
  echo ':4'
fi
`;

const ZSH = (): string => `#compdef dsr kubectl-dsr
# zsh completion of dsr and kubectl-dsr: source <(dsr completion zsh)
${candidates()}

_dsr() {
  setopt localoptions shwordsplit
  local -a cands
  cands=(\${(f)"$(__dsr_candidates "\${(@)words[2,CURRENT]}")"})
  compadd -a cands
}

if [ "$funcstack[1]" = _dsr ]; then
  _dsr "$@"
else
  compdef _dsr dsr kubectl-dsr
fi
`;

/** Returns the completion script of `shell`. */
export const completionScript = (shell: Shell): string =>
  shell === 'bash' ? BASH() : ZSH();
