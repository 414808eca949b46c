//! The Rust API: a crate user registers the Axe dialect in a melior context, reads and builds
//! `#axe.layout` attributes, and runs Axe passes from a melior `PassManager` next to upstream's.

use axe::dialect;
use axe::layout::Layout;
use melior::ir::operation::OperationLike;
use melior::ir::{BlockLike, Module, RegionLike, ValueLike};
use melior::pass::PassManager;
use melior::utility::parse_pass_pipeline;
use melior::Context;

fn context() -> Context {
    let registry = dialect::registry_with_everything();
    let context = Context::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    context.set_allow_unregistered_dialects(true);
    context
}

#[test]
fn attribute_converts_to_and_from_the_algebra() {
    let context = context();
    let l = Layout::parse("(8, 2) : (4@lane, 1@warp) + [(2) : (4@warp)] + 5@warp").unwrap();
    let attr = dialect::layout_attr(&context, &l);
    assert!(dialect::is_layout_attr(attr));
    assert_eq!(dialect::layout_of_attr(attr), Some(l.clone()));
    assert_eq!(
        attr.to_string(),
        "#axe.layout<(8, 2) : (4@lane, 1@warp) + [(2) : (4@warp)] + 5@warp>"
    );
}

#[test]
fn pass_runs_from_a_melior_pass_manager() {
    let context = context();
    let mut module = Module::parse(
        &context,
        r#"func.func @f(%b: memref<32xf32>) -> !axe.tensor<8x4xf32, global, #axe.layout<(8, 1, 4) : (4, 9, 1)>> {
             %t = axe.view %b : memref<32xf32> to !axe.tensor<8x4xf32, global, #axe.layout<(8, 1, 4) : (4, 9, 1)>>
             return %t : !axe.tensor<8x4xf32, global, #axe.layout<(8, 1, 4) : (4, 9, 1)>>
           }"#,
    )
    .expect("Axe IR parses through melior");
    let pm = PassManager::new(&context);
    parse_pass_pipeline(
        pm.as_operation_pass_manager(),
        "builtin.module(axe-canonicalize,canonicalize)",
    )
    .expect("axe-canonicalize is in MLIR's registry by name");
    pm.run(&mut module).expect("the pipeline runs");
    assert!(module.as_operation().verify());
    let func = module.body().first_operation().unwrap();
    let view = func
        .region(0)
        .unwrap()
        .first_block()
        .unwrap()
        .first_operation()
        .unwrap();
    let ty = view.result(0).unwrap().r#type();
    assert_eq!(dialect::tensor_layout(ty), Some(Layout::parse("(32) : (1)").unwrap()));
}

#[test]
fn invalid_layout_is_refused_by_the_builder() {
    let context = context();
    assert!(Module::parse(&context, r#""test.op"() {l = #axe.layout<(0) : (1)>} : () -> ()"#).is_none());
}
