//! Every public iterator of the workspace's dispatch is `Send`: a user may move it to a thread.

fn assert_send<T: Send>(_: &T) {}

#[test]
fn iterators_are_send() {
    assert_send(&nab_isa::cpu().names());
    assert_send(&nab_isa::available().names());
}
