//! A Rust host of Axe: register the dialect in a melior context, parse Axe IR, run Axe's
//! passes next to upstream's from a melior PassManager, and read the layouts back.
use axe::dialect;
use axe::layout::Layout;
use melior::ir::operation::OperationLike;
use melior::ir::Module;
use melior::pass::PassManager;
use melior::utility::parse_pass_pipeline;
use melior::Context;

fn main() {
    let context = Context::new();
    context.append_dialect_registry(&dialect::registry_with_everything());
    context.load_all_available_dialects();

    let mut module = Module::parse(
        &context,
        r#"func.func @f(%b: memref<32xf32>) -> !axe.tensor<8x4xf32, global, #axe.layout<(8, 1, 4) : (4, 9, 1)>> {
             %t = axe.view %b : memref<32xf32> to !axe.tensor<8x4xf32, global, #axe.layout<(8, 1, 4) : (4, 9, 1)>>
             return %t : !axe.tensor<8x4xf32, global, #axe.layout<(8, 1, 4) : (4, 9, 1)>>
           }"#,
    )
    .expect("Axe IR parses");
    let pm = PassManager::new(&context);
    parse_pass_pipeline(
        pm.as_operation_pass_manager(),
        "builtin.module(axe-canonicalize,canonicalize)",
    )
    .expect("Axe's passes are registered by name");
    pm.run(&mut module).expect("the pipeline runs");
    assert!(module.as_operation().verify());
    println!("{}", module.as_operation());

    // The layout algebra is plain Rust.
    let l = Layout::parse("(8, 1, 4) : (4, 9, 1)").unwrap();
    println!("canonical: {}", l.canonical());
}
