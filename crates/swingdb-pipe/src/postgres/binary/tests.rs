use super::*;
use datafusion::arrow::datatypes::Int32Type;

fn roundtrip(kind: PgKind, array: ArrayRef) -> ArrayRef {
    let names = vec!["c".to_string()];
    let schema = Arc::new(Schema::new(vec![Field::new("c", array.data_type().clone(), true)]));
    let batch = RecordBatch::try_new(schema, vec![array]).unwrap();
    let mut out = BytesMut::new();
    write_header(&mut out);
    encode_batch(&names, std::slice::from_ref(&kind), &batch, &mut out).unwrap();
    write_trailer(&mut out);
    let mut decoder = Decoder::new(vec![PgColumn { name: "c".into(), kind }], 1000);
    // Fed one byte at a time: tuples split anywhere are reassembled.
    let mut batches = Vec::new();
    for b in out.chunks(1) {
        batches.extend(decoder.push(b).unwrap());
    }
    batches.extend(decoder.finish().unwrap());
    batches[0].column(0).clone()
}

#[test]
fn values_survive_encoding_and_decoding() {
    let dec = Arc::new(
        Decimal128Array::from(vec![
            Some(0),
            Some(1),
            Some(-12_345_678),
            Some(1_000_000),
            None,
            Some(i128::from(i64::MAX) * 1000),
            Some(5),
        ])
        .with_precision_and_scale(38, 2)
        .unwrap(),
    ) as ArrayRef;
    assert_eq!(roundtrip(PgKind::Numeric { precision: 38, scale: 2 }, dec.clone()).as_ref(), dec.as_ref());
    let ints = Arc::new(Int64Array::from(vec![Some(i64::MIN), None, Some(0), Some(i64::MAX)])) as ArrayRef;
    assert_eq!(roundtrip(PgKind::Int8, ints.clone()).as_ref(), ints.as_ref());
    let ts = Arc::new(
        TimestampMicrosecondArray::from(vec![Some(0), Some(-1), None, Some(1_700_000_000_000_000)])
            .with_timezone("UTC"),
    ) as ArrayRef;
    assert_eq!(roundtrip(PgKind::TimestampTz, ts.clone()).as_ref(), ts.as_ref());
    let dates = Arc::new(Date32Array::from(vec![Some(-1), Some(0), Some(20_000), None])) as ArrayRef;
    assert_eq!(roundtrip(PgKind::Date, dates.clone()).as_ref(), dates.as_ref());
    let text = Arc::new(StringArray::from(vec![Some("é"), None, Some("")])) as ArrayRef;
    assert_eq!(roundtrip(PgKind::Text, text.clone()).as_ref(), text.as_ref());
    let list = Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(vec![
        Some(vec![Some(1), None, Some(3)]),
        None,
        Some(vec![]),
    ])) as ArrayRef;
    let back = roundtrip(PgKind::Array(Box::new(PgKind::Int4)), list.clone());
    assert_eq!(back.as_any().downcast_ref::<ListArray>().unwrap(), list.as_any().downcast_ref::<ListArray>().unwrap());
}

#[test]
fn numerics_that_do_not_fit_are_refused_not_rounded() {
    // 1.005 (dscale 3) into scale 2: digits [1, 50] weight 0.
    let mut v = BytesMut::new();
    for w in [2i16, 0, 0, 3, 1, 50] {
        v.put_i16(w);
    }
    let err = decode_numeric("price", &v, 2).unwrap_err().to_string();
    assert!(err.contains("'price'") && err.contains("more than 2 decimal places"), "{err}");
    let mut nan = BytesMut::new();
    for w in [0i16, 0, 0xC000u16 as i16, 0] {
        nan.put_i16(w);
    }
    assert!(decode_numeric("x", &nan, 2).unwrap_err().to_string().contains("NaN"));
    assert_eq!(decode_numeric("x", &v, 3).unwrap(), 1005);
}
