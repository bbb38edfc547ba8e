# SPDX-License-Identifier: GPL-2.0-only
# bash completion: teach iproute2's completion of tc(8) the ecnsharp qdisc and its options.
# Installed by `make install` in /etc/bash_completion.d, which bash-completion reads at start:
# at the first completion of tc, iproute2's own script is loaded and extended. The words are
# checked against the grammar (kmod/src/options.rs) by tc-helper/tests/completion.rs.

# _ecnsharp_qdisc_options PREV: the options of ecnsharp, or the named values of PREV.
_ecnsharp_qdisc_options()
{
    local values
    case $1 in
        mode) values='ecnsharp tcn codel red dequeue prob ecnsharp_prob ins pst' ;;
        control_law) values='inv_sqrt linear ns3' ;;
        idle_reset|split_gso) values='on off' ;;
        k_unit) values='packets bytes' ;;
        sched) values='sp dwrr wfq' ;;
        classify) values='priority dscp' ;;
        dscpmap) values='default' ;;
        non_ect) values='pass drop' ;;
        limit|limit_bytes|bands|ins_target|pst_target|pst_interval|k|K|tmin|tmax|pmax|seed|\
strict|quanta|weights|priomap|rate|burst)
            return 0 ;;
    esac
    if [[ -n $values ]]; then
        COMPREPLY=( $( compgen -W "$values" -- "$cur" ) )
        return 0
    fi
    _tc_once_attr 'limit limit_bytes bands mode ins_target pst_target pst_interval
        control_law idle_reset k k_unit tmin tmax pmax seed sched strict quanta weights
        classify priomap dscpmap rate burst non_ect split_gso'
    return 0
}

# Loads iproute2's completion of tc and wraps its per-qdisc options.
_ecnsharp_tc_setup()
{
    complete -r tc 2>/dev/null
    if declare -F __load_completion >/dev/null; then
        __load_completion tc
    elif declare -F _completion_loader >/dev/null; then
        _completion_loader tc
    fi
    declare -F _tc >/dev/null && declare -F _tc_qdisc_options >/dev/null || return 1
    [[ $QDISC_KIND == *' ecnsharp '* ]] || QDISC_KIND="$QDISC_KIND ecnsharp "
    eval "_ecnsharp_tc_qdisc_options_orig() $(declare -f _tc_qdisc_options | tail -n +2)"
    _tc_qdisc_options()
    {
        if [[ $1 == ecnsharp ]]; then
            _ecnsharp_qdisc_options "$prev"
            return 0
        fi
        _ecnsharp_tc_qdisc_options_orig "$@"
    }
    complete -F _tc tc
}

_ecnsharp_tc_first()
{
    _ecnsharp_tc_setup || return 124
    _tc "$@"
}
complete -F _ecnsharp_tc_first tc
