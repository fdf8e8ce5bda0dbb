int demo_ext;
